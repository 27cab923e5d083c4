/**
 * The client's error for an answer the server refused: the HTTP status, the server's `error`
 * message verbatim, and how long to wait when the server said so (`Retry-After`). Failures to
 * reach the server at all are `ProtocolError('NETWORK')` instead.
 */
import { isTakedown } from '../wire/errors.js'

export class ApiError extends Error {
  /** HTTP status of the refusal (for a WebSocket refusal, the `status` of its `error` frame). */
  readonly status: number
  /** Whole seconds from `Retry-After` (429 lockouts, quota, rate limit); null when absent. */
  readonly retryAfterSec: number | null
  /** `details` of the error body when present (400 validation answers). */
  readonly details?: unknown
  /** Whether the operator took the item down (a 410 with `reason: "removed"`, docs/api.md). */
  readonly removed: boolean
  /** The operator's words on a takedown, when given. */
  readonly takedown: string | null

  constructor(
    status: number,
    message: string,
    options: {
      retryAfterSec?: number | null
      details?: unknown
      removed?: boolean
      takedown?: string | null
      cause?: unknown
    } = {},
  ) {
    super(message || `HTTP ${status}`, options.cause === undefined ? {} : { cause: options.cause })
    this.name = 'ApiError'
    this.status = status
    this.retryAfterSec = options.retryAfterSec ?? null
    this.removed = options.removed ?? false
    this.takedown = options.takedown ?? null
    if (options.details !== undefined) this.details = options.details
  }
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status)
}

/** Parses `Retry-After` as delay-seconds (RFC 9110 §10.2.3) or an HTTP date; null otherwise. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text)
  // An HTTP-date (RFC 9110 §5.6.7) starts with the day's name; anything else is not one.
  if (!/^[A-Za-z]{3},/.test(text)) return null
  const date = Date.parse(text)
  if (Number.isNaN(date)) return null
  return Math.max(0, Math.ceil((date - now) / 1000))
}

/**
 * The ApiError of a refused answer. Reads the body (a small JSON `{ error, details? }`); a body
 * that is not that shape gives the message `HTTP <status>`.
 */
export async function apiErrorFromResponse(response: Response): Promise<ApiError> {
  let message = ''
  let details: unknown
  let removed = false
  let takedown: string | null = null
  try {
    const text = await response.text()
    const body = JSON.parse(text) as unknown
    if (typeof body === 'object' && body !== null) {
      const error = (body as Record<string, unknown>).error
      if (typeof error === 'string') message = error
      details = (body as Record<string, unknown>).details
      removed = isTakedown(body)
      const words = (body as Record<string, unknown>).takedown
      if (removed && typeof words === 'string') takedown = words
    }
  } catch {
    // Not JSON (a proxy's HTML page, an empty body): the status alone must do.
  }
  return new ApiError(response.status, message || `HTTP ${response.status}`, {
    retryAfterSec: parseRetryAfter(response.headers.get('Retry-After')),
    details,
    removed,
    takedown,
  })
}
