/**
 * When a failed notification is tried again and when it is given up: the outbox's schedule, and
 * the lease the settings keep the delivery timeout under.
 * May touch: nothing (pure).
 */

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
