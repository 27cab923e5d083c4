/**
 * Failed-attempt lockout for password checks and, later, inbox routes (spec: Authentication,
 * Lockout): failures are counted per key (for example `upload:<id>`, `note:<id>`,
 * `request:<id>`) and client IP; after PASSWORD_MAX_ATTEMPTS the key is locked for that IP for
 * PASSWORD_LOCKOUT_MS and every check answers 429 with `Retry-After`.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, eq, gt, lte, sql } from 'drizzle-orm'

import type { Db } from '../../db/client.js'
import { HttpError } from '../../http-error.js'
import { recordLockoutRefusal } from '../../metrics/recorder.js'
import type { DailyIpHash } from './quota.js'
import { RecentMap } from './recent-map.js'

/**
 * In this process's memory (MemoryLockout, one instance on SQLite) or in the database (DbLockout,
 * shared by the instances on PostgreSQL).
 */
export interface Lockout {
  /** Throws 429 `Too many failed attempts, try again later` with Retry-After while locked. */
  assertOpen(key: string, clientIp: string): void | Promise<void>
  /**
   * Counts one failed attempt; answers false, counting nothing, when the pair was locked already
   * (by a concurrent failure that reached the limit first).
   */
  fail(key: string, clientIp: string): boolean | Promise<boolean>
  /** Clears the failures of this key and IP after a success. */
  succeed(key: string, clientIp: string): void | Promise<void>
  /** Forgets entries that no longer matter; the cleanup job calls it. */
  prune(): Promise<number>
}

/**
 * Checks a presented token under the lockout when the item has a password (spec: Authentication,
 * Lockout): a locked caller gets 429 first, a well-formed wrong token counts one failure (a
 * malformed one cannot be a password guess), a right one clears the failures. An item without a
 * password never locks. Answers whether the token matched; the caller answers a mismatch.
 */
export async function tokenUnderLockout(
  lockout: Lockout,
  guard: { key: string; clientIp: string; hasPassword: boolean },
  token: { matches: boolean; wellFormed: boolean },
): Promise<boolean> {
  const { key, clientIp, hasPassword } = guard
  if (!hasPassword) return token.matches
  await assertOpen(lockout, key, clientIp)
  if (token.matches) await lockout.succeed(key, clientIp)
  // A guess that raced past the check after the limit was reached is answered as locked.
  else if (token.wellFormed && !(await lockout.fail(key, clientIp))) {
    await assertOpen(lockout, key, clientIp)
  }
  return token.matches
}

/** The lockout's check, with each refusal recorded for the metrics. */
async function assertOpen(lockout: Lockout, key: string, clientIp: string): Promise<void> {
  try {
    await lockout.assertOpen(key, clientIp)
  } catch (error) {
    if (error instanceof HttpError) recordLockoutRefusal()
    throw error
  }
}

export interface MemoryLockoutOptions {
  maxAttempts: number
  lockoutMs: number
  now: () => number
  /** Most (key, IP) pairs remembered; beyond it the least recently failed pair is forgotten. */
  maxEntries?: number
}

interface Attempts {
  failures: number
  /** Set once the pair is locked; 0 while it is not. */
  lockedUntil: number
  /** When this entry stops mattering: the lock ends, or the failures are too old to count. */
  expiresAt: number
}

const DEFAULT_MAX_ENTRIES = 100_000

/**
 * Lockout kept in this process's memory. Failures older than the lockout duration are forgotten,
 * so a slow trickle of wrong guesses never locks; a lock lasts `lockoutMs` from the failure that
 * set it, after which the pair starts again with no failures.
 */
export class MemoryLockout implements Lockout {
  private readonly maxAttempts: number
  private readonly lockoutMs: number
  private readonly now: () => number
  /** Ordered by last failure: every failure re-inserts its entry, so stale ones sit in front. */
  private readonly entries: RecentMap<Attempts>

  constructor(options: MemoryLockoutOptions) {
    this.maxAttempts = options.maxAttempts
    this.lockoutMs = options.lockoutMs
    this.now = options.now
    this.entries = new RecentMap(options.maxEntries ?? DEFAULT_MAX_ENTRIES)
  }

  assertOpen(key: string, clientIp: string): void {
    const now = this.now()
    const entry = this.entries.get(entryKey(key, clientIp))
    if (entry === undefined || entry.lockedUntil <= now) return
    const seconds = Math.max(1, Math.ceil((entry.lockedUntil - now) / 1000))
    throw new HttpError(429, ERROR_MESSAGES.tooManyAttempts, {
      headers: { 'Retry-After': String(seconds) },
    })
  }

  fail(key: string, clientIp: string): boolean {
    const now = this.now()
    // Entries expire in insertion order (each lives `lockoutMs` from its last failure).
    this.entries.dropStale((entry) => entry.expiresAt <= now)
    const id = entryKey(key, clientIp)
    const previous = this.entries.get(id)
    // A failure while locked (a caller that skipped assertOpen) must not extend the lock.
    if (previous !== undefined && previous.lockedUntil > now) return false
    const failures =
      (previous !== undefined && previous.expiresAt > now ? previous.failures : 0) + 1
    const locked = failures >= this.maxAttempts
    const entry: Attempts = {
      failures: locked ? 0 : failures,
      lockedUntil: locked ? now + this.lockoutMs : 0,
      expiresAt: now + this.lockoutMs,
    }
    this.entries.put(id, entry)
    return true
  }

  succeed(key: string, clientIp: string): void {
    this.entries.delete(entryKey(key, clientIp))
  }

  /** Stale entries are dropped as failures come; nothing is left for the cleanup job. */
  prune(): Promise<number> {
    return Promise.resolve(0)
  }

  /** Number of remembered (key, IP) pairs; for tests and diagnostics. */
  get size(): number {
    return this.entries.size
  }
}

/**
 * The lockout in the database, shared by every instance on PostgreSQL, with the rules of
 * MemoryLockout. A failure is one `insert … on conflict do update` whose update reads the row it
 * has locked, so failures counted at once on several instances add up exactly and the one that
 * reaches the limit sets the lock; a locked entry is left as it is.
 *
 * The (key, IP) pair is stored as the daily HMAC of both (quota.ts, DailyIpHash), never the IP in
 * clear; as the hashes of one day cannot be linked to the next, failures counted before midnight
 * UTC no longer count after it, while a running lock (keyed by the day it was set) stays checked.
 */
export class DbLockout implements Lockout {
  private readonly db: Db
  private readonly ipHash: DailyIpHash
  private readonly maxAttempts: number
  private readonly lockoutMs: number
  private readonly now: () => number

  constructor(options: Omit<MemoryLockoutOptions, 'maxEntries'> & { db: Db; ipHash: DailyIpHash }) {
    this.db = options.db
    this.ipHash = options.ipHash
    this.maxAttempts = options.maxAttempts
    this.lockoutMs = options.lockoutMs
    this.now = options.now
  }

  async assertOpen(key: string, clientIp: string): Promise<void> {
    const { lockouts } = this.db.tables
    const now = this.now()
    // A lock set late the day before is kept under that day's hash.
    const today = this.entryHash(key, clientIp, now)
    const yesterday = this.entryHash(key, clientIp, now - this.lockoutMs)
    const rows = await this.db.query
      .select({ lockedUntil: lockouts.lockedUntil })
      .from(lockouts)
      .where(
        and(sql`${lockouts.entryHash} in (${today}, ${yesterday})`, gt(lockouts.lockedUntil, now)),
      )
    const lockedUntil = Math.max(0, ...rows.map((row) => row.lockedUntil))
    if (lockedUntil <= now) return
    const seconds = Math.max(1, Math.ceil((lockedUntil - now) / 1000))
    throw new HttpError(429, ERROR_MESSAGES.tooManyAttempts, {
      headers: { 'Retry-After': String(seconds) },
    })
  }

  async fail(key: string, clientIp: string): Promise<boolean> {
    const { lockouts } = this.db.tables
    const now = this.now()
    const lockedUntil = now + this.lockoutMs
    const startsLocked = this.maxAttempts <= 1
    // Failures still counted, this one included: the old ones only while they have not expired.
    const failures = sql`(case when ${lockouts.expiresAt} > ${now} then ${lockouts.failures} else 0 end) + 1`
    const locks = sql`${failures} >= ${this.maxAttempts}`
    const counted = await this.db.query
      .insert(lockouts)
      .values({
        entryHash: this.entryHash(key, clientIp, now),
        failures: startsLocked ? 0 : 1,
        lockedUntil: startsLocked ? lockedUntil : 0,
        expiresAt: lockedUntil,
      })
      .onConflictDoUpdate({
        target: lockouts.entryHash,
        set: {
          failures: sql`case when ${locks} then 0 else ${failures} end`,
          lockedUntil: sql`case when ${locks} then cast(${lockedUntil} as bigint) else 0 end`,
          expiresAt: lockedUntil,
        },
        // A failure while locked (a caller that skipped assertOpen) must not extend the lock.
        setWhere: lte(lockouts.lockedUntil, now),
      })
      .returning({ failures: lockouts.failures })
    return counted.length > 0
  }

  async succeed(key: string, clientIp: string): Promise<void> {
    const { lockouts } = this.db.tables
    await this.db.query
      .delete(lockouts)
      .where(eq(lockouts.entryHash, this.entryHash(key, clientIp, this.now())))
  }

  /** Deletes the entries whose lock has ended and whose failures are too old to count. */
  async prune(): Promise<number> {
    const { lockouts } = this.db.tables
    const removed = await this.db.query
      .delete(lockouts)
      .where(lte(lockouts.expiresAt, this.now()))
      .returning({ entryHash: lockouts.entryHash })
    return removed.length
  }

  private entryHash(key: string, clientIp: string, at: number): string {
    return this.ipHash.of(entryKey(key, clientIp), at)
  }
}

/** A newline cannot occur in a header value or a key, so the pair cannot collide. */
function entryKey(key: string, clientIp: string): string {
  return `${key}\n${clientIp}`
}
