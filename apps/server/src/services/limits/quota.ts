/**
 * The per-IP upload quota (spec: Limits, upload quota). The interface the upload services use;
 * the implementation stores usage per window under an HMAC of the IP whose key rotates daily.
 */
import { createHmac, randomBytes } from 'node:crypto'

import { ERROR_MESSAGES, QUOTA_DISABLED, type QuotaResponse } from '@fileshare/protocol'
import { and, eq, lt } from 'drizzle-orm'

import type { Db } from '../../db/client.js'
import { increment } from '../../db/expressions.js'
import { HttpError } from '../../http-error.js'
import { PerKeyQueue } from './per-key-queue.js'

/** Bytes held against a client's quota while an upload runs. */
export interface QuotaReservation {
  /** Ends the reservation once: `true` records the bytes as used, `false` gives them back. */
  settle(kept: boolean): Promise<void>
}

export interface UploadQuota {
  /**
   * Holds `bytes` for an upload that is starting: 429 `Upload quota exhausted` when nothing is
   * left, 413 `Upload exceeds the remaining quota` when less than `bytes` is left. Check and hold
   * of one client wait for its other reservations and settlements, so concurrent uploads cannot
   * overshoot.
   */
  reserve(clientIp: string, bytes: number): Promise<QuotaReservation>
  /** What `GET /api/quota` reports for this client. */
  status(clientIp: string): Promise<QuotaResponse>
}

export interface DbUploadQuotaOptions {
  db: Db
  /** Bytes per window and IP; 0 turns the quota off. */
  quotaBytes: number
  windowSec: number
  now: () => number
}

/** The `settings` row holding the 32-byte server secret the daily HMAC keys derive from. */
export const QUOTA_SECRET_SETTING = 'quota-secret'

const SECRET_BYTES = 32

const NO_RESERVATION: QuotaReservation = { settle: async () => undefined }

interface Window {
  start: number
  end: number
  clientHash: string
}

/**
 * Quota usage in the database, so it survives restarts; running uploads are held in memory only,
 * as a restart ends them anyway. Windows are fixed and aligned to the Unix epoch. A client's
 * reservations and settlements run one at a time (`queue`): a check reads the recorded bytes and
 * this process's held ones, and a settlement moves bytes from one to the other, which must not
 * happen between the two reads.
 *
 * The client is stored as HMAC-SHA256(dailyKey, ip) with dailyKey = HMAC-SHA256(secret, UTC date
 * of the window's start): a stored hash cannot be tied to an IP without the secret, and the hashes
 * of one day cannot be linked to those of another. Taking the date of the window's start keeps a
 * client's hash the same for the whole window even when a window spans midnight.
 */
export class DbUploadQuota implements UploadQuota {
  private readonly db: Db
  private readonly quotaBytes: number
  private readonly windowMs: number
  private readonly now: () => number
  private readonly ipHash: DailyIpHash
  /** Bytes of running uploads per IP; kept across window changes until each upload ends. */
  private readonly held = new Map<string, number>()
  private readonly queue = new PerKeyQueue()

  constructor(options: DbUploadQuotaOptions & { ipHash: DailyIpHash }) {
    this.db = options.db
    this.quotaBytes = options.quotaBytes
    this.windowMs = options.windowSec * 1000
    this.now = options.now
    this.ipHash = options.ipHash
  }

  async reserve(clientIp: string, bytes: number): Promise<QuotaReservation> {
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      throw new RangeError(`A quota reservation needs a byte count, got ${bytes}`)
    }
    if (this.quotaBytes === 0) return NO_RESERVATION
    return this.queue.run(clientIp, () => this.reserveNow(clientIp, bytes))
  }

  private async reserveNow(clientIp: string, bytes: number): Promise<QuotaReservation> {
    const now = this.now()
    const window = this.window(clientIp, now)
    const remaining = this.quotaBytes - (await this.used(clientIp, window))
    if (remaining <= 0) {
      const seconds = Math.max(1, Math.ceil((window.end - now) / 1000))
      throw new HttpError(429, ERROR_MESSAGES.quotaExhausted, {
        headers: { 'Retry-After': String(seconds) },
      })
    }
    if (bytes > remaining) throw new HttpError(413, ERROR_MESSAGES.quotaExceeded)

    this.hold(clientIp, bytes)
    let settled = false
    return {
      settle: async (kept) => {
        if (settled) return
        settled = true
        await this.queue.run(clientIp, async () => {
          try {
            // Recorded in the window the upload ends in, which every later reservation counts.
            if (kept && bytes > 0) await this.record(this.window(clientIp, this.now()), bytes)
          } finally {
            this.hold(clientIp, -bytes)
          }
        })
      },
    }
  }

  async status(clientIp: string): Promise<QuotaResponse> {
    if (this.quotaBytes === 0) return QUOTA_DISABLED
    const window = this.window(clientIp, this.now())
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

  /** Deletes the rows of past windows; the cleanup job calls it. Returns how many it deleted. */
  async prune(): Promise<number> {
    const { uploadQuota } = this.db.tables
    const start = this.windowStart(this.now())
    const removed = await this.db.query
      .delete(uploadQuota)
      .where(lt(uploadQuota.windowStart, start))
      .returning({ windowStart: uploadQuota.windowStart })
    return removed.length
  }

  private async used(clientIp: string, window: Window): Promise<number> {
    const { uploadQuota } = this.db.tables
    const [row] = await this.db.query
      .select({ bytes: uploadQuota.bytes })
      .from(uploadQuota)
      .where(
        and(
          eq(uploadQuota.clientHash, window.clientHash),
          eq(uploadQuota.windowStart, window.start),
        ),
      )
    return (row?.bytes ?? 0) + (this.held.get(clientIp) ?? 0)
  }

  private async record(window: Window, bytes: number): Promise<void> {
    const { uploadQuota } = this.db.tables
    await this.db.query
      .insert(uploadQuota)
      .values({ clientHash: window.clientHash, windowStart: window.start, bytes })
      .onConflictDoUpdate({
        target: [uploadQuota.clientHash, uploadQuota.windowStart],
        set: { bytes: increment(uploadQuota.bytes, bytes) },
      })
  }

  private hold(clientIp: string, bytes: number): void {
    const total = (this.held.get(clientIp) ?? 0) + bytes
    if (total > 0) this.held.set(clientIp, total)
    else this.held.delete(clientIp)
  }

  private windowStart(now: number): number {
    return Math.floor(now / this.windowMs) * this.windowMs
  }

  private window(clientIp: string, now: number): Window {
    const start = this.windowStart(now)
    return { start, end: start + this.windowMs, clientHash: this.ipHash.of(clientIp, start) }
  }
}

/**
 * HMAC-SHA256(dailyKey, ip) as hex, with dailyKey = HMAC-SHA256(secret, UTC date): an IP as the
 * upload quota and the daily request limit store it. Hashes cannot be tied to an IP without the
 * server secret, and those of one day cannot be linked to those of another.
 */
export class DailyIpHash {
  private dailyKey: { date: string; key: Buffer } | undefined

  private constructor(private readonly secret: Buffer) {}

  /** Reads the server secret from the database, creating it on first start. */
  static async load(db: Db): Promise<DailyIpHash> {
    return new DailyIpHash(await loadSecret(db))
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

/** Reads the server secret, creating it on first start; concurrent first starts agree on one. */
async function loadSecret(db: Db): Promise<Buffer> {
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
  return row.value
}
