/** Telling a cancellation from a failure, the same way in every client. */

/**
 * True when `error` is a cancellation: an error named `AbortError` (a `DOMException`, or Node's
 * own, whose code is `ABORT_ERR`), or the reason of `signal` once it has fired. A timeout
 * (`TimeoutError`) is not one: it is a failure to report, not the user's choice.
 */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && error === signal.reason) return true
  if (typeof error !== 'object' || error === null) return false
  const { name, code } = error as { name?: unknown; code?: unknown }
  return name === 'AbortError' || code === 'ABORT_ERR'
}
