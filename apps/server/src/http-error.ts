/**
 * The one error type of the server: the spec's status and its verbatim message. Services throw
 * it; the app's single error handler renders `{ error }` (plus `details` on note validation), and
 * the upload sockets send the same pair as an `error` frame.
 * May touch: nothing (pure).
 */
import { HEADERS } from '@fileshare/protocol'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Whole seconds from `now` until `until` (milliseconds), at least one: a `Retry-After` value. */
export function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000))
}

/** A 429 with `message` and `Retry-After: retryAfterSec`. */
export function tooManyRequests(message: string, retryAfterSec: number): HttpError {
  return new HttpError(429, message, { headers: { [HEADERS.retryAfter]: String(retryAfterSec) } })
}

export class HttpError extends Error {
  readonly details: Record<string, string> | undefined
  /** Extra response headers, such as `Retry-After`. */
  readonly headers: Record<string, string>
  /** Extra fields of the body beside `error`, such as a takedown's `reason` (docs/api.md). */
  readonly fields: Record<string, string> | undefined

  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    options: {
      details?: Record<string, string>
      headers?: Record<string, string>
      fields?: Record<string, string>
      cause?: unknown
    } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'HttpError'
    this.details = options.details
    this.headers = options.headers ?? {}
    this.fields = options.fields
  }
}
