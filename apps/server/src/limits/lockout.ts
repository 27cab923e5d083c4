/**
 * Failed-attempt lockout (spec: Authentication, Lockout): failures are counted per key (such as
 * `note:<id>`) and client IP; after PASSWORD_MAX_ATTEMPTS the key is locked for that IP for
 * PASSWORD_LOCKOUT_MS and every check answers 429 with `Retry-After`.
 * May touch: table lockouts; the metrics registry (metrics/recorder.ts).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm'

import { deleteRows, type Db } from '../db/client.js'
import { HttpError, secondsUntil, tooManyRequests } from '../http-error.js'
import { recordLockoutRefusal } from '../metrics/recorder.js'
import type { DailyIpHash } from './quota.js'
import { RecentMap } from './recent-map.js'

/** What `admit` hands back for `succeed`: the attempt's place in the count, and its time. */
export interface LockoutTicket {
  failures: number
  at: number
}

/**
 * In this process's memory (MemoryLockout, SQLite) or in the database (DbLockout, PostgreSQL). An
 * attempt is admitted and counted as a failure in one atomic step, before its token is judged, so
 * attempts in flight at once never pass the limit between them; a right token gives it back.
 */
export interface Lockout {
  /** Throws the 429 with Retry-After while locked, counting nothing; for what cannot be a guess. */
  assertOpen(key: string, clientIp: string): void | Promise<void>
  /**
   * Admits one attempt, counted as a failure in the same step, or throws the 429 while locked; a
   * refused one is counted too (an earlier right one then gives nothing back) but never extends it.
   */
  admit(key: string, clientIp: string): LockoutTicket | Promise<LockoutTicket>
  /** Gives a right attempt back (lock included) unless another attempt came after it. */
  succeed(key: string, clientIp: string, ticket: LockoutTicket): void | Promise<void>
  /** Forgets entries that no longer matter; the cleanup job calls it. */
  prune(): Promise<number>
}

/**
 * Whether a presented token matched, judged under the lockout when the item has a password (spec:
 * Authentication, Lockout); a malformed token cannot be a guess and is only refused while locked.
 * A right token among a burst of guesses is answered only when admitted among the first
 * PASSWORD_MAX_ATTEMPTS.
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
  /** Attempts admitted and not given back. */
  failures: number
  /** 0 while the pair is not locked. */
  lockedUntil: number
  /** When the lock ends and the failures are too old to count. */
  expiresAt: number
}

const DEFAULT_MAX_ENTRIES = 100_000

/**
 * Lockout in this process's memory. Failures older than `lockoutMs` are forgotten, so a slow
 * trickle of wrong guesses never locks. An entry's count only grows until it expires or a right
 * token clears it, so it tells whether an attempt was admitted after a given one.
 */
export class MemoryLockout implements Lockout {
  /** Ordered by last failure: every failure re-inserts its entry, so stale ones sit in front. */
  private readonly entries: RecentMap<Attempts>

  constructor(private readonly options: MemoryLockoutOptions) {
    this.entries = new RecentMap(options.maxEntries ?? DEFAULT_MAX_ENTRIES)
  }

  assertOpen(key: string, clientIp: string): void {
    const now = this.options.now()
    const entry = this.entries.get(entryKey(key, clientIp))
    if (entry !== undefined && entry.lockedUntil > now) throw lockedError(entry.lockedUntil, now)
  }

  admit(key: string, clientIp: string): LockoutTicket {
    const { now: clock, maxAttempts, lockoutMs } = this.options
    const now = clock()
    // Entries expire in insertion order (each lives `lockoutMs` from its last failure).
    this.entries.dropStale((entry) => entry.expiresAt <= now)
    const id = entryKey(key, clientIp)
    const previous = this.entries.get(id)
    const failures =
      (previous !== undefined && previous.expiresAt > now ? previous.failures : 0) + 1
    if (previous !== undefined && previous.lockedUntil > now) {
      previous.failures = failures
      throw lockedError(previous.lockedUntil, now)
    }
    const entry: Attempts = {
      failures,
      lockedUntil: failures >= maxAttempts ? now + lockoutMs : 0,
      expiresAt: now + lockoutMs,
    }
    this.entries.put(id, entry)
    return { failures, at: now }
  }

  succeed(key: string, clientIp: string, ticket: LockoutTicket): void {
    const id = entryKey(key, clientIp)
    if (this.entries.get(id)?.failures === ticket.failures) this.entries.delete(id)
  }

  /** Stale entries are dropped as failures come. */
  prune(): Promise<number> {
    return Promise.resolve(0)
  }

  get size(): number {
    return this.entries.size
  }
}

type DbLockoutOptions = Omit<MemoryLockoutOptions, 'maxEntries'> & { db: Db; ipHash: DailyIpHash }

/**
 * The lockout in PostgreSQL with the rules of MemoryLockout. An admission is one `insert … on
 * conflict do update` reading the row it has locked, so attempts on several instances add up
 * exactly; a clearing is one `delete` conditional on the count its admission left. The pair is
 * stored as its daily HMAC (DailyIpHash), so failures no longer count after midnight UTC, while a
 * running lock (keyed by the day it was set) stays checked.
 */
export class DbLockout implements Lockout {
  constructor(private readonly options: DbLockoutOptions) {}

  async assertOpen(key: string, clientIp: string): Promise<void> {
    const now = this.options.now()
    await this.assertUnlocked(
      [this.entryHash(key, clientIp, now), this.yesterday(key, clientIp, now)],
      now,
    )
  }

  async admit(key: string, clientIp: string): Promise<LockoutTicket> {
    const { lockouts } = this.options.db.tables
    const now = this.options.now()
    const today = this.entryHash(key, clientIp, now)
    // Nothing is counted under the day before any more; only a lock it holds still refuses.
    const yesterday = this.yesterday(key, clientIp, now)
    if (yesterday !== today) await this.assertUnlocked([yesterday], now)
    const { maxAttempts, lockoutMs } = this.options
    const lockUntil = now + lockoutMs
    const locked = sql`${lockouts.lockedUntil} > ${now}`
    // Attempts still counted, this one included: the old ones only while they have not expired.
    const failures = sql`(case when ${lockouts.expiresAt} > ${now} then ${lockouts.failures} else 0 end) + 1`
    const [entry] = await this.options.db.query
      .insert(lockouts)
      .values({
        entryHash: today,
        failures: 1,
        lockedUntil: maxAttempts <= 1 ? lockUntil : 0,
        expiresAt: lockUntil,
      })
      .onConflictDoUpdate({
        target: lockouts.entryHash,
        set: {
          failures,
          // A refused attempt is counted too, as in MemoryLockout, but never extends the lock.
          lockedUntil: sql`case when ${locked} then ${lockouts.lockedUntil} when ${failures} >= ${maxAttempts} then cast(${lockUntil} as bigint) else 0 end`,
          expiresAt: sql`case when ${locked} then ${lockouts.expiresAt} else cast(${lockUntil} as bigint) end`,
        },
      })
      .returning({ failures: lockouts.failures, lockedUntil: lockouts.lockedUntil })
    // The count reaches the limit only by the attempt that sets the lock; refused ones pass it.
    if (entry!.failures > maxAttempts) throw lockedError(entry!.lockedUntil, now)
    return { failures: entry!.failures, at: now }
  }

  async succeed(key: string, clientIp: string, ticket: LockoutTicket): Promise<void> {
    const { lockouts } = this.options.db.tables
    // The entry the attempt was counted under, even when the day's key has changed since.
    const entryHash = this.entryHash(key, clientIp, ticket.at)
    await this.options.db.query
      .delete(lockouts)
      .where(and(eq(lockouts.entryHash, entryHash), eq(lockouts.failures, ticket.failures)))
  }

  /** Deletes the entries whose lock has ended and whose failures are too old to count. */
  async prune(): Promise<number> {
    const { db, now } = this.options
    return deleteRows(db.query, db.tables.lockouts, lte(db.tables.lockouts.expiresAt, now()))
  }

  /** Throws the 429 of the latest lock still running under any of these entries. */
  private async assertUnlocked(entryHashes: string[], now: number): Promise<void> {
    const { lockouts } = this.options.db.tables
    const rows = await this.options.db.query
      .select({ lockedUntil: lockouts.lockedUntil })
      .from(lockouts)
      .where(and(inArray(lockouts.entryHash, entryHashes), gt(lockouts.lockedUntil, now)))
    const lockedUntil = Math.max(0, ...rows.map((row) => row.lockedUntil))
    if (lockedUntil > now) throw lockedError(lockedUntil, now)
  }

  private entryHash(key: string, clientIp: string, at: number): string {
    return this.options.ipHash.of(entryKey(key, clientIp), at)
  }

  /** The entry under which a lock set late the day before is kept. */
  private yesterday(key: string, clientIp: string, now: number): string {
    return this.entryHash(key, clientIp, now - this.options.lockoutMs)
  }
}

/** A newline cannot occur in a header value or a key, so the pair cannot collide. */
function entryKey(key: string, clientIp: string): string {
  return `${key}\n${clientIp}`
}
