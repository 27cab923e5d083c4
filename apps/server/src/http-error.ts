/**
 * The one error type of the server: the spec's status and its verbatim message. Services throw
 * it; the app's single error handler renders `{ error }` (plus `details` on note validation), and
 * the upload sockets send the same pair as an `error` frame.
 * May touch: nothing (pure).
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status'

export class HttpError extends Error {
  readonly status: ContentfulStatusCode
  readonly details: Record<string, string> | undefined
  /** Extra response headers, such as `Retry-After`. */
  readonly headers: Record<string, string>
  /** Extra fields of the body beside `error`, such as a takedown's `reason` (docs/api.md). */
  readonly fields: Record<string, string> | undefined

  constructor(
    status: ContentfulStatusCode,
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
    this.status = status
    this.details = options.details
    this.headers = options.headers ?? {}
    this.fields = options.fields
  }
}
