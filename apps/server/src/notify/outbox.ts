/**
 * The notification outbox: rows are queued in the transaction that stores an upload, claimed by a
 * conditional update of their lease (so exactly one instance holds a row while it sends), deleted
 * once delivered, and retried with a doubling delay for a day (RetryPolicy). A row whose request
 * is gone is dropped unsent.
 * May touch: tables notifications, file_requests (read).
 */
import { randomUUID } from 'node:crypto'

import { and, asc, count, eq, exists, inArray, lte } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import type { fileRequests, notifications } from '../db/schema-pg.js'
import { increment } from '../db/expressions.js'

export interface RetryPolicy {
  /** The wait after the first failure; it doubles with each further one. */
  firstDelayMs: number
  maxDelayMs: number
  /** How long after the upload a notification is still tried. */
  giveUpAfterMs: number
  /** How long a claim holds a row; longer than any one delivery may take. */
  leaseMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  firstDelayMs: 1000,
  maxDelayMs: 10 * 60_000,
  giveUpAfterMs: 24 * 3_600_000,
  leaseMs: 2 * 60_000,
}

export type NotificationChannel = 'email' | 'webhook'

/** Where a request's creator asked to be told, from the request row. */
type NotifyTargets = Pick<
  typeof fileRequests.$inferSelect,
  'notifyEmail' | 'notifyWebhook' | 'notifyWebhookSecret'
>

/** A row claimed for a delivery; `attempts` counts this one. */
export type ClaimedNotification = typeof notifications.$inferSelect & {
  channel: NotificationChannel
}

/** A finished upload into a request, as far as a notification may tell. */
export type FinishedUpload = Pick<
  ClaimedNotification,
  'uploadId' | 'requestId' | 'size' | 'arrivedAt'
>

export class NotificationOutbox {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {}

  /** Queues one row per channel the request asked for; through `tx`, the upload's transaction. */
  async enqueue(tx: Executor, upload: FinishedUpload, targets: NotifyTargets): Promise<number> {
    const { notifyEmail, notifyWebhook, notifyWebhookSecret } = targets
    const rows = []
    if (notifyEmail !== null) {
      rows.push({ channel: 'email', target: notifyEmail, secret: null })
    }
    if (notifyWebhook !== null && notifyWebhookSecret !== null) {
      rows.push({ channel: 'webhook', target: notifyWebhook, secret: notifyWebhookSecret })
    }
    if (rows.length === 0) return 0
    await tx
      .insert(this.db.tables.notifications)
      .values(rows.map((row) => ({ id: randomUUID(), ...upload, ...row })))
    return rows.length
  }

  /** Drops what is still queued for an upload that was undone; through `tx`. */
  async withdraw(tx: Executor, uploadId: string): Promise<void> {
    const { notifications } = this.db.tables
    await tx.delete(notifications).where(eq(notifications.uploadId, uploadId))
  }

  /** Claims up to `limit` due rows no delivery holds, deleting those whose request is gone. */
  async claimDue(limit: number): Promise<ClaimedNotification[]> {
    const { notifications, fileRequests } = this.db.tables
    const time = this.now()
    const due = and(lte(notifications.notBefore, time), lte(notifications.leaseUntil, time))
    const candidates = await this.db.query
      .select({ id: notifications.id, request: fileRequests.id })
      .from(notifications)
      .leftJoin(fileRequests, eq(fileRequests.id, notifications.requestId))
      .where(due)
      .orderBy(asc(notifications.notBefore))
      .limit(limit)
    const orphans = candidates.filter((row) => row.request === null).map((row) => row.id)
    if (orphans.length > 0) {
      await this.db.query.delete(notifications).where(inArray(notifications.id, orphans))
    }
    // Checked again in the claim itself, for a request deleted since the look.
    const requestExists = exists(
      this.db.query
        .select({ id: fileRequests.id })
        .from(fileRequests)
        .where(eq(fileRequests.id, notifications.requestId)),
    )
    const live = candidates.filter((row) => row.request !== null).map((row) => row.id)
    if (live.length === 0) return []
    // One conditional update claims them all: a row another instance claimed meanwhile is no
    // longer due, and is left out of what returns.
    const rows = await this.db.query
      .update(notifications)
      .set({
        leaseUntil: time + this.policy.leaseMs,
        attempts: increment(notifications.attempts),
      })
      .where(and(inArray(notifications.id, live), due, requestExists))
      .returning()
    return rows
      .map((row) => ({ ...row, channel: row.channel as NotificationChannel }))
      .sort((a, b) => a.notBefore - b.notBefore)
  }

  async delivered(row: ClaimedNotification): Promise<void> {
    const { notifications } = this.db.tables
    await this.db.query.delete(notifications).where(eq(notifications.id, row.id))
  }

  /** Puts a failed row back for later; false, deleting it, once that is past `giveUpAfterMs`. */
  async failed(row: ClaimedNotification): Promise<boolean> {
    const { notifications } = this.db.tables
    const { firstDelayMs, maxDelayMs, giveUpAfterMs } = this.policy
    const time = this.now()
    const delay = Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(30, row.attempts - 1))
    if (time + delay > row.arrivedAt + giveUpAfterMs) {
      await this.db.query.delete(notifications).where(eq(notifications.id, row.id))
      return false
    }
    await this.db.query
      .update(notifications)
      .set({ notBefore: time + delay, leaseUntil: 0 })
      .where(and(eq(notifications.id, row.id), eq(notifications.attempts, row.attempts)))
    return true
  }

  async count(): Promise<number> {
    const { notifications } = this.db.tables
    const [row] = await this.db.query.select({ n: count() }).from(notifications)
    return row?.n ?? 0
  }
}
