/**
 * Failed-attempt lockout for password checks and, later, inbox routes (spec: Authentication,
 * Lockout): failures are counted per key (for example `upload:<id>`, `note:<id>`,
 * `request:<id>`) and client IP; after PASSWORD_MAX_ATTEMPTS the key is locked for that IP for
 * PASSWORD_LOCKOUT_MS and every check answers 429 with `Retry-After`.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../../http-error.js'

export interface Lockout {
  /** Throws 429 `Too many failed attempts, try again later` with Retry-After while locked. */
  assertOpen(key: string, clientIp: string): void
  /** Counts one failed attempt. */
  fail(key: string, clientIp: string): void
  /** Clears the failures of this key and IP after a success. */
  succeed(key: string, clientIp: string): void
}

/**
 * Checks a presented token under the lockout when the item has a password (spec: Authentication,
 * Lockout): a locked caller gets 429 first, a well-formed wrong token counts one failure (a
 * malformed one cannot be a password guess), a right one clears the failures. An item without a
 * password never locks. Answers whether the token matched; the caller answers a mismatch.
 */
export function tokenUnderLockout(
  lockout: Lockout,
  guard: { key: string; clientIp: string; hasPassword: boolean },
  token: { matches: boolean; wellFormed: boolean },
): boolean {
  const { key, clientIp, hasPassword } = guard
  if (!hasPassword) return token.matches
  lockout.assertOpen(key, clientIp)
  if (token.matches) lockout.succeed(key, clientIp)
  else if (token.wellFormed) lockout.fail(key, clientIp)
  return token.matches
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
  private readonly maxEntries: number
  /** Ordered by last failure: every failure re-inserts its entry, so stale ones sit in front. */
  private readonly entries = new Map<string, Attempts>()

  constructor(options: MemoryLockoutOptions) {
    this.maxAttempts = options.maxAttempts
    this.lockoutMs = options.lockoutMs
    this.now = options.now
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
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

  fail(key: string, clientIp: string): void {
    const now = this.now()
    this.dropStale(now)
    const id = entryKey(key, clientIp)
    const previous = this.entries.get(id)
    // A failure while locked (a caller that skipped assertOpen) must not extend the lock.
    if (previous !== undefined && previous.lockedUntil > now) return
    const failures =
      (previous !== undefined && previous.expiresAt > now ? previous.failures : 0) + 1
    const locked = failures >= this.maxAttempts
    const entry: Attempts = {
      failures: locked ? 0 : failures,
      lockedUntil: locked ? now + this.lockoutMs : 0,
      expiresAt: now + this.lockoutMs,
    }
    this.entries.delete(id)
    if (this.entries.size >= this.maxEntries) this.evictOldest()
    this.entries.set(id, entry)
  }

  succeed(key: string, clientIp: string): void {
    this.entries.delete(entryKey(key, clientIp))
  }

  /** Number of remembered (key, IP) pairs; for tests and diagnostics. */
  get size(): number {
    return this.entries.size
  }

  /** Entries expire in insertion order (each lives `lockoutMs` from its last failure). */
  private dropStale(now: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt > now) return
      this.entries.delete(id)
    }
  }

  private evictOldest(): void {
    const oldest = this.entries.keys().next()
    if (oldest.done !== true) this.entries.delete(oldest.value)
  }
}

/** A newline cannot occur in a header value or a key, so the pair cannot collide. */
function entryKey(key: string, clientIp: string): string {
  return `${key}\n${clientIp}`
}
