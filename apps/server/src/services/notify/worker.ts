/**
 * Delivers queued notifications: every instance polls the outbox, claims what is due and sends
 * it by email or webhook; a failure is logged and retried later (outbox.ts). An upload in this
 * process wakes the worker at once instead of waiting for the next poll.
 */
import { notificationSizeClass, type RequestNotification } from '@fileshare/protocol'

import type { Logger } from '../../logger.js'
import { iso } from '../request-records.js'
import type { Mailer } from './email.js'
import type { ClaimedNotification, NotificationOutbox } from './outbox.js'
import { postWebhook } from './webhook.js'

export const NOTIFY_POLL_MS = 1000
const BATCH = 20

export interface NotificationWorkerDeps {
  outbox: NotificationOutbox
  /** Null without SMTP_URL: email rows then fail and are retried until one is configured. */
  mailer: Mailer | null
  allowPrivate: boolean
  /** CUSTOM_TITLE, which names the service in a mail's subject. */
  title: string
  logger: Logger
  pollMs?: number
}

/** The subject and text of a notification mail. */
export function notificationMail(
  notification: RequestNotification,
  title: string,
): { subject: string; text: string } {
  return {
    subject: `${title}: a file arrived in your request`,
    text: [
      `A file arrived in your file request ${notification.requestId}.`,
      '',
      `Time: ${notification.time}`,
      `Size: ${notification.sizeClass}`,
      '',
      'Open your inbox link to download it.',
    ].join('\n'),
  }
}

/** What a notification says: request id, time and size class; no file name, no secret. */
export function notificationOf(row: ClaimedNotification): RequestNotification {
  return {
    requestId: row.requestId,
    time: iso(row.arrivedAt),
    sizeClass: notificationSizeClass(row.size),
  }
}

export class NotificationWorker {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = true

  constructor(private readonly deps: NotificationWorkerDeps) {}

  /** Polls every `pollMs`; the first pass comes one interval after the start, as cleanup's. */
  start(): void {
    this.stopped = false
    this.timer = setInterval(() => this.wake(), this.deps.pollMs ?? NOTIFY_POLL_MS)
    this.timer.unref()
  }

  /** Runs a pass now, or right after the one under way. */
  wake(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.pass()
      .catch((error: unknown) =>
        this.deps.logger.error(`notification pass failed: ${String(error)}`),
      )
      .finally(() => {
        this.running = undefined
        if (this.again) {
          this.again = false
          this.wake()
        }
      })
  }

  /** Stops polling, waits for the pass under way and closes the mail connection. */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
    this.deps.mailer?.close()
  }

  private async pass(): Promise<void> {
    for (;;) {
      const rows = await this.deps.outbox.claimDue(BATCH)
      await Promise.all(rows.map((row) => this.deliver(row)))
      if (rows.length < BATCH || this.stopped) return
    }
  }

  private async deliver(row: ClaimedNotification): Promise<void> {
    const { outbox, logger } = this.deps
    try {
      await this.send(row)
    } catch (error) {
      const retried = await outbox.failed(row)
      const reason = error instanceof Error ? error.message : String(error)
      if (retried) {
        logger.warn(`${row.channel} notification of request ${row.requestId} failed: ${reason}`)
      } else {
        logger.error(
          `${row.channel} notification of request ${row.requestId} given up after ${row.attempts} tries: ${reason}`,
        )
      }
      return
    }
    await outbox.delivered(row)
  }

  private async send(row: ClaimedNotification): Promise<void> {
    const notification = notificationOf(row)
    if (row.channel === 'webhook') {
      if (row.secret === null) throw new Error('webhook notification without its key')
      await postWebhook(row.target, notification, row.secret, this.deps.allowPrivate)
      return
    }
    if (this.deps.mailer === null) throw new Error('SMTP_URL is not set')
    const { subject, text } = notificationMail(notification, this.deps.title)
    await this.deps.mailer.send(row.target, subject, text)
  }
}
