/**
 * Failed-attempt lockout for password checks and, later, inbox routes (spec: Authentication,
 * Lockout): failures are counted per key (for example `upload:<id>`, `note:<id>`,
 * `request:<id>`) and client IP; after PASSWORD_MAX_ATTEMPTS the key is locked for that IP for
 * PASSWORD_LOCKOUT_MS and every check answers 429 with `Retry-After`.
 * May touch: table lockouts; the metrics registry (metrics/recorder.ts).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import { HttpError, secondsUntil, tooManyRequests } from '../http-error.js'
import { recordLockoutRefusal } from '../metrics/recorder.js'
import type { DailyIpHash } from './quota.js'
import { RecentMap } from './recent-map.js'

/**
 * In this process's memory (MemoryLockout, one instance on SQLite) or in the database (DbLockout,
 * shared by the instances on PostgreSQL). An attempt is admitted and counted as a failure in one
 * atomic step, before its token is judged, so attempts in flight at once never pass the limit
 * between them; a right token then gives its attempt back.
 */
/** What `admit` hands back for `succeed`: the attempt's place in the count, and its time. */
export interface LockoutTicket {
  failures: number
  at: number
}

export interface Lockout {
  /**
   * Throws 429 `Too many failed attempts, try again later` with Retry-After while locked,
   * counting nothing; for what cannot be a password guess.
   */
  assertOpen(key: string, clientIp: string): void | Promise<void>
  /**
   * Admits one attempt and counts it as a failure in the same step, or throws the 429 of
   * assertOpen while locked; the attempt that reaches the limit sets the lock. A refused attempt
   * never extends the lock, but is counted so that a right attempt admitted before it gives
   * nothing back. Answers the attempt's ticket for succeed.
   */
  admit(key: string, clientIp: string): LockoutTicket | Promise<LockoutTicket>
  /**
   * Gives a right attempt back: clears the failures of this key and IP, lock included, unless
   * another attempt came after this one; then they stay, and this attempt with them.
   */
  succeed(key: string, clientIp: string, ticket: LockoutTicket): void | Promise<void>
  /** Forgets entries that no longer matter; the cleanup job calls it. */
  prune(): Promise<number>
}

/**
 * Checks a presented token under the lockout when the item has a password (spec: Authentication,
 * Lockout): a well-formed token is admitted first, counted as a failure in the same step (429 when
 * locked), and a right one gives its attempt back; a malformed one cannot be a password guess and
 * is only refused while locked. An item without a password never locks. Answers whether the token
 * matched; the caller answers a mismatch.
 *
 * A right token among a burst of concurrent guesses is thus answered only when it was admitted
 * among the first PASSWORD_MAX_ATTEMPTS, and a burst gets no more answers than guesses in turn.
 */
export async function tokenUnderLockout(
  lockout: Lockout,
  guard: { key: string; clientIp: string; hasPassword: boolean },
  token: { matches: boolean; wellFormed: boolean },
): Promise<boolean> {
  const { key, clientIp, hasPassword } = guard
  if (!hasPassword) return token.matches
  if (!token.wellFormed) {
    await refusalRecorded(() => lockout.assertOpen(key, clientIp))
    return false
  }
  const ticket = await refusalRecorded(() => lockout.admit(key, clientIp))
  if (token.matches) await lockout.succeed(key, clientIp, ticket)
  return token.matches
}

/** A lockout step, with each refusal recorded for the metrics. */
async function refusalRecorded<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    if (error instanceof HttpError) recordLockoutRefusal()
    throw error
  }
}

/** The 429 of a locked key and IP, with the seconds left as Retry-After. */
function lockedError(lockedUntil: number, now: number): HttpError {
  return tooManyRequests(ERROR_MESSAGES.tooManyAttempts, secondsUntil(lockedUntil, now))
}

export interface MemoryLockoutOptions {
  maxAttempts: number
  lockoutMs: number
  now: () => number
  /** Most (key, IP) pairs remembered; beyond it the least recently failed pair is forgotten. */
  maxEntries?: number
}

interface Attempts {
  /** Attempts admitted and not given back; the one that reaches the limit sets the lock. */
  failures: number
  /** Set once the pair is locked; 0 while it is not. */
  lockedUntil: number
  /** When this entry stops mattering: the lock ends, or the failures are too old to count. */
  expiresAt: number
}

const DEFAULT_MAX_ENTRIES = 100_000

/**
 * Lockout kept in this process's memory. Failures older than the lockout duration are forgotten,
 * so a slow trickle of wrong guesses never locks; a lock lasts `lockoutMs` from the attempt that
 * set it, after which the pair starts again with no failures. An entry's failure count only grows
 * until the entry expires or a right token clears it, so it tells whether an attempt was admitted
 * after a given one.
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
    if (entry !== undefined && entry.lockedUntil > now) throw lockedError(entry.lockedUntil, now)
  }

  admit(key: string, clientIp: string): LockoutTicket {
    const now = this.now()
    // Entries expire in insertion order (each lives `lockoutMs` from its last failure).
    this.entries.dropStale((entry) => entry.expiresAt <= now)
    const id = entryKey(key, clientIp)
    const previous = this.entries.get(id)
    const failures =
      (previous !== undefined && previous.expiresAt > now ? previous.failures : 0) + 1
    if (previous !== undefined && previous.lockedUntil > now) {
      // Refused: counted only so that a right attempt admitted before it gives nothing back,
      // and without extending the lock.
      previous.failures = failures
      throw lockedError(previous.lockedUntil, now)
    }
    const entry: Attempts = {
      failures,
      lockedUntil: failures >= this.maxAttempts ? now + this.lockoutMs : 0,
      expiresAt: now + this.lockoutMs,
    }
    this.entries.put(id, entry)
    return { failures, at: now }
  }

  succeed(key: string, clientIp: string, ticket: LockoutTicket): void {
    const id = entryKey(key, clientIp)
    if (this.entries.get(id)?.failures === ticket.failures) this.entries.delete(id)
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
 * MemoryLockout. An admission is one `insert … on conflict do update` whose update reads the row
 * it has locked, so attempts made at once on several instances add up exactly, the one that
 * reaches the limit sets the lock and none passes it; a right token's clearing is one `delete`
 * conditional on the count its admission left.
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
    const now = this.now()
    await this.assertUnlocked(
      [this.entryHash(key, clientIp, now), this.yesterday(key, clientIp, now)],
      now,
    )
  }

  async admit(key: string, clientIp: string): Promise<LockoutTicket> {
    const { lockouts } = this.db.tables
    const now = this.now()
    const today = this.entryHash(key, clientIp, now)
    // Nothing is counted under the day before any more; only a lock it holds still refuses.
    const yesterday = this.yesterday(key, clientIp, now)
    if (yesterday !== today) await this.assertUnlocked([yesterday], now)
    const lockUntil = now + this.lockoutMs
    const locked = sql`${lockouts.lockedUntil} > ${now}`
    // Attempts still counted, this one included: the old ones only while they have not expired.
    const failures = sql`(case when ${lockouts.expiresAt} > ${now} then ${lockouts.failures} else 0 end) + 1`
    const [entry] = await this.db.query
      .insert(lockouts)
      .values({
        entryHash: today,
        failures: 1,
        lockedUntil: this.maxAttempts <= 1 ? lockUntil : 0,
        expiresAt: lockUntil,
      })
      .onConflictDoUpdate({
        target: lockouts.entryHash,
        set: {
          failures,
          // A refused attempt is counted too, as in MemoryLockout, but never extends the lock.
          lockedUntil: sql`case when ${locked} then ${lockouts.lockedUntil} when ${failures} >= ${this.maxAttempts} then cast(${lockUntil} as bigint) else 0 end`,
          expiresAt: sql`case when ${locked} then ${lockouts.expiresAt} else cast(${lockUntil} as bigint) end`,
        },
      })
      .returning({ failures: lockouts.failures, lockedUntil: lockouts.lockedUntil })
    // The count reaches the limit only by the attempt that sets the lock; refused ones pass it.
    if (entry!.failures > this.maxAttempts) throw lockedError(entry!.lockedUntil, now)
    return { failures: entry!.failures, at: now }
  }

  async succeed(key: string, clientIp: string, ticket: LockoutTicket): Promise<void> {
    const { lockouts } = this.db.tables
    // The entry the attempt was counted under, even when the day's key has changed since.
    const entryHash = this.entryHash(key, clientIp, ticket.at)
    await this.db.query
      .delete(lockouts)
      .where(and(eq(lockouts.entryHash, entryHash), eq(lockouts.failures, ticket.failures)))
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

  /** Throws the 429 of the latest lock still running under any of these entries. */
  private async assertUnlocked(entryHashes: string[], now: number): Promise<void> {
    const { lockouts } = this.db.tables
    const rows = await this.db.query
      .select({ lockedUntil: lockouts.lockedUntil })
      .from(lockouts)
      .where(and(inArray(lockouts.entryHash, entryHashes), gt(lockouts.lockedUntil, now)))
    const lockedUntil = Math.max(0, ...rows.map((row) => row.lockedUntil))
    if (lockedUntil > now) throw lockedError(lockedUntil, now)
  }

  private entryHash(key: string, clientIp: string, at: number): string {
    return this.ipHash.of(entryKey(key, clientIp), at)
  }

  /** The entry under which a lock set late the day before is kept. */
  private yesterday(key: string, clientIp: string, now: number): string {
    return this.entryHash(key, clientIp, now - this.lockoutMs)
  }
}

/** A newline cannot occur in a header value or a key, so the pair cannot collide. */
function entryKey(key: string, clientIp: string): string {
  return `${key}\n${clientIp}`
}
