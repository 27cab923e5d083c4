/**
 * Delivers queued notifications: every instance polls the outbox, claims what is due and sends
 * it by email or webhook; a failure is logged and retried later (outbox.ts). An upload in this
 * process wakes the worker at once. Each delivery runs under its own deadline, so a receiver that
 * never answers delays nothing else; a stop gives deliveries under way a grace, then cuts them off.
 * May touch: timers; the log; the outbox and the network through outbox.ts, email.ts and
 * webhook.ts.
 */
import { notificationSizeClass, type RequestNotification } from '@fileshare/protocol'

import type { Logger } from '../logger.js'
import { iso } from '../requests/request-records.js'
import type { Mailer } from './email.js'
import type { ClaimedNotification, NotificationOutbox } from './outbox.js'
import { postWebhook } from './webhook.js'

export const NOTIFY_POLL_MS = 1000
/** Deliveries under way at once in one process. */
const MAX_IN_FLIGHT = 20

export interface NotificationWorkerDeps {
  outbox: NotificationOutbox
  /** Null without SMTP_URL: email rows then fail and are retried. */
  mailer: Mailer | null
  allowPrivate: boolean
  /** CUSTOM_TITLE, which names the service in a mail's subject. */
  title: string
  logger: Logger
  /** NOTIFY_DELIVERY_TIMEOUT_MS: the most one delivery may take, from its start to its answer. */
  deadlineMs: number
  pollMs?: number
}

interface Delivery {
  done: Promise<void>
  abort: AbortController
}

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
  private claiming: Promise<void> | undefined
  private again = false
  private stopped = true
  private readonly inFlight = new Set<Delivery>()

  constructor(private readonly deps: NotificationWorkerDeps) {}

  /** Polls every `pollMs`; the first pass comes one interval after the start, as cleanup's. */
  start(): void {
    this.stopped = false
    this.timer = setInterval(() => this.wake(), this.deps.pollMs ?? NOTIFY_POLL_MS)
    this.timer.unref()
  }

  /** Claims what is due now, or right after the claim under way; deliveries go on meanwhile. */
  wake(): void {
    if (this.stopped) return
    if (this.claiming) {
      this.again = true
      return
    }
    this.claiming = this.claim()
      .catch((error: unknown) =>
        this.deps.logger.error(`notification pass failed: ${String(error)}`),
      )
      .finally(() => {
        this.claiming = undefined
        if (this.again) {
          this.again = false
          this.wake()
        }
      })
  }

  /**
   * Stops claiming, gives deliveries under way `graceMs`, aborts the rest (put back as failed
   * tries, for any instance to send again), then closes the mail connection.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.claiming
    const all = () => Promise.all([...this.inFlight].map((delivery) => delivery.done))
    let grace: NodeJS.Timeout | undefined
    await Promise.race([all(), new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))])
    clearTimeout(grace)
    for (const delivery of this.inFlight) {
      delivery.abort.abort(new Error('the server is shutting down'))
    }
    await all()
    this.deps.mailer?.close()
  }

  /** Claims due rows while slots are free, starting each delivery as it is claimed. */
  private async claim(): Promise<void> {
    for (;;) {
      const room = MAX_IN_FLIGHT - this.inFlight.size
      if (room <= 0 || this.stopped) return
      const rows = await this.deps.outbox.claimDue(room)
      for (const row of rows) this.dispatch(row)
      if (rows.length < room) return
    }
  }

  /** Runs one delivery under its deadline; its end frees its slot and looks for more. */
  private dispatch(row: ClaimedNotification): void {
    const abort = new AbortController()
    const deadline = setTimeout(
      () => abort.abort(new Error(`no answer within ${this.deps.deadlineMs} ms`)),
      this.deps.deadlineMs,
    )
    const delivery: Delivery = {
      abort,
      done: this.deliver(row, abort.signal).finally(() => {
        clearTimeout(deadline)
        this.inFlight.delete(delivery)
        this.wake()
      }),
    }
    this.inFlight.add(delivery)
  }

  private async deliver(row: ClaimedNotification, signal: AbortSignal): Promise<void> {
    const { outbox, logger } = this.deps
    try {
      await untilAborted(this.send(row, signal), signal)
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

  private async send(row: ClaimedNotification, signal: AbortSignal): Promise<void> {
    const notification = notificationOf(row)
    if (row.channel === 'webhook') {
      if (row.secret === null) throw new Error('webhook notification without its key')
      await postWebhook(row.target, notification, row.secret, this.deps.allowPrivate, signal)
      return
    }
    if (this.deps.mailer === null) throw new Error('SMTP_URL is not set')
    const { subject, text } = notificationMail(notification, this.deps.title)
    await this.deps.mailer.send(row.target, subject, text)
  }
}

/** `work`, or the signal's reason once it aborts: a mail cannot be aborted, so it is ignored. */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
