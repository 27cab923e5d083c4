/**
 * The per-IP upload quota (spec: Limits, upload quota). The interface the upload services use;
 * the implementation stores usage per window under an HMAC of the IP whose key rotates daily.
 * May touch: tables upload_quota, settings (the daily HMAC key).
 */
import { createHmac, randomBytes } from 'node:crypto'

import { ERROR_MESSAGES, QUOTA_DISABLED, type QuotaResponse } from '@fileshare/protocol'
import { and, eq, lt, or, sql } from 'drizzle-orm'

import { deleteRows, type Db, type Executor } from '../db/client.js'
import { decrementToZero, increment } from '../db/expressions.js'
import { HttpError, secondsUntil, tooManyRequests } from '../http-error.js'

/**
 * Bytes held against a client's quota while an upload runs, by hash and window, never the IP, so
 * that whichever instance ends the upload's session ends the hold.
 */
export interface QuotaHold {
  clientHash: string
  windowStart: number
  bytes: number
}

export interface UploadQuota {
  /**
   * Holds `bytes` for an upload that is starting (null while off): 429 when nothing is left, 413
   * when less than `bytes` is. Check and hold are one statement, so uploads cannot overshoot; `on`
   * is the transaction that writes the session's row.
   */
  reserve(clientIp: string, bytes: number, on?: Executor): Promise<QuotaHold | null>
  /** Ends a hold on `tx`, which ends its session: `kept` records its bytes, else they come back. */
  endHold(tx: Executor, hold: QuotaHold, kept: boolean): Promise<void>
  /** What `GET /api/quota` reports for this client. */
  status(clientIp: string): Promise<QuotaResponse>
}

export interface DbUploadQuotaOptions {
  db: Db
  ipHash: DailyIpHash
  /** Bytes per window and IP; 0 turns the quota off. */
  quotaBytes: number
  windowSec: number
  now: () => number
}

/** The `settings` row holding the 32-byte server secret the daily HMAC keys derive from. */
export const QUOTA_SECRET_SETTING = 'quota-secret'

const SECRET_BYTES = 32

interface Window {
  start: number
  end: number
  clientHash: string
}

/**
 * Quota usage in the database, in fixed windows aligned to the Unix epoch. A client's row of a
 * window holds the bytes recorded in it and those `held` by uploads that started in it and still
 * run (counted by the next window too). A reservation is one conditional UPDATE and ending a hold
 * one UPDATE in its session's transaction; as each reads the row it has locked, reservations on
 * any instance cannot both pass when only one fits. The client's HMAC takes the date of the
 * window's start, so a window spanning midnight keeps one hash.
 */
export class DbUploadQuota implements UploadQuota {
  private readonly db: Db
  private readonly quotaBytes: number
  private readonly windowMs: number

  constructor(private readonly options: DbUploadQuotaOptions) {
    this.db = options.db
    this.quotaBytes = options.quotaBytes
    this.windowMs = options.windowSec * 1000
  }

  async reserve(clientIp: string, bytes: number, on = this.db.query): Promise<QuotaHold | null> {
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      throw new RangeError(`A quota reservation needs a byte count, got ${bytes}`)
    }
    if (this.quotaBytes === 0) return null
    const now = this.options.now()
    const window = this.window(clientIp, now)
    if (!(await this.hold(clientIp, window, bytes, on))) {
      const remaining = this.quotaBytes - (await this.used(clientIp, window, on))
      if (remaining <= 0) {
        throw tooManyRequests(ERROR_MESSAGES.quotaExhausted, secondsUntil(window.end, now))
      }
      throw new HttpError(413, ERROR_MESSAGES.quotaExceeded)
    }
    return { clientHash: window.clientHash, windowStart: window.start, bytes }
  }

  async endHold(tx: Executor, hold: QuotaHold, kept: boolean): Promise<void> {
    const { uploadQuota } = this.db.tables
    await tx
      .update(uploadQuota)
      .set({
        held: decrementToZero(uploadQuota.held, hold.bytes),
        bytes: increment(uploadQuota.bytes, kept ? hold.bytes : 0),
      })
      .where(this.rowOf(hold.clientHash, hold.windowStart))
  }

  async status(clientIp: string): Promise<QuotaResponse> {
    if (this.quotaBytes === 0) return QUOTA_DISABLED
    const window = this.window(clientIp, this.options.now())
    const used = await this.used(clientIp, window)
    return {
      enabled: true,
      limitBytes: this.quotaBytes,
      usedBytes: used,
      remainingBytes: Math.max(0, this.quotaBytes - used),
      windowMs: this.windowMs,
      resetsAt: new Date(window.end).toISOString(),
    }
  }

  /** Deletes the rows of windows before the previous one (whose held bytes still count). */
  async prune(): Promise<number> {
    const { uploadQuota } = this.db.tables
    const start = this.windowStart(this.options.now())
    const past = or(
      lt(uploadQuota.windowStart, start - this.windowMs),
      and(lt(uploadQuota.windowStart, start), eq(uploadQuota.held, 0)),
    )
    return deleteRows(this.db.query, uploadQuota, past)
  }

  /** Recorded and held bytes of `window` plus those the previous window still holds. */
  private async used(clientIp: string, window: Window, on = this.db.query): Promise<number> {
    const { uploadQuota } = this.db.tables
    const { windowStart, bytes, held } = uploadQuota
    const previous = this.previous(clientIp, window)
    const rows = await on
      .select({ windowStart, bytes, held })
      .from(uploadQuota)
      .where(
        or(
          this.rowOf(window.clientHash, window.start),
          this.rowOf(previous.clientHash, previous.start),
        ),
      )
    return rows.reduce(
      (sum, row) => sum + row.held + (row.windowStart === window.start ? row.bytes : 0),
      0,
    )
  }

  /** Holds `bytes` in the client's row of `window` if they fit; answers whether they did. */
  private async hold(clientIp: string, window: Window, bytes: number, on: Executor) {
    if (bytes > this.quotaBytes) return false
    const { uploadQuota } = this.db.tables
    await on
      .insert(uploadQuota)
      .values({ clientHash: window.clientHash, windowStart: window.start, bytes: 0, held: 0 })
      .onConflictDoNothing()
    const previous = this.previous(clientIp, window)
    // Read in the same statement: held bytes of the previous window only ever go down, so a
    // reading that lags behind counts too much, never too little.
    const previousHeld = sql`coalesce((select previous.held from ${uploadQuota} as previous
      where previous.client_hash = ${previous.clientHash}
      and previous.window_start = ${previous.start}), 0)`
    const held = await on
      .update(uploadQuota)
      .set({ held: increment(uploadQuota.held, bytes) })
      .where(
        and(
          this.rowOf(window.clientHash, window.start),
          // An empty upload still needs a byte left: an exhausted quota refuses everything.
          sql`${uploadQuota.bytes} + ${uploadQuota.held} + ${previousHeld} + ${Math.max(bytes, 1)} <= ${this.quotaBytes}`,
        ),
      )
      .returning({ held: uploadQuota.held })
    return held.length > 0
  }

  private rowOf(clientHash: string, windowStart: number) {
    const { uploadQuota } = this.db.tables
    return and(eq(uploadQuota.clientHash, clientHash), eq(uploadQuota.windowStart, windowStart))
  }

  private windowStart(now: number): number {
    return Math.floor(now / this.windowMs) * this.windowMs
  }

  private window(clientIp: string, now: number): Window {
    const start = this.windowStart(now)
    const clientHash = this.options.ipHash.of(clientIp, start)
    return { start, end: start + this.windowMs, clientHash }
  }

  private previous(clientIp: string, window: Window): Window {
    return this.window(clientIp, window.start - this.windowMs)
  }
}

/**
 * HMAC-SHA256(HMAC-SHA256(secret, UTC date), ip) as hex: an IP as the limits store it, which
 * cannot be tied to the IP without the secret, nor linked to the same IP's hash of another day.
 */
export class DailyIpHash {
  private dailyKey: { date: string; key: Buffer } | undefined

  private constructor(private readonly secret: Buffer) {}

  /** Reads the server secret, creating it on first start; concurrent first starts agree on one. */
  static async load(db: Db): Promise<DailyIpHash> {
    const { settings } = db.tables
    await db.query
      .insert(settings)
      .values({ key: QUOTA_SECRET_SETTING, value: randomBytes(SECRET_BYTES) })
      .onConflictDoNothing()
    const [row] = await db.query
      .select({ value: settings.value })
      .from(settings)
      .where(eq(settings.key, QUOTA_SECRET_SETTING))
    if (row === undefined || row.value.length !== SECRET_BYTES) {
      throw new Error(`The ${QUOTA_SECRET_SETTING} setting is missing or not ${SECRET_BYTES} bytes`)
    }
    return new DailyIpHash(row.value)
  }

  /** The hash of `clientIp` under the key of the UTC date of `at` (milliseconds). */
  of(clientIp: string, at: number): string {
    return createHmac('sha256', this.keyOf(at)).update(clientIp).digest('hex')
  }

  private keyOf(at: number): Buffer {
    const date = new Date(at).toISOString().slice(0, 10)
    if (this.dailyKey?.date !== date) {
      this.dailyKey = { date, key: createHmac('sha256', this.secret).update(date).digest() }
    }
    return this.dailyKey.key
  }
}
