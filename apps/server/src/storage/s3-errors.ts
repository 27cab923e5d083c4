/**
 * What an S3 SDK failure means to the store: gone already, or worth another attempt.
 * May touch: nothing (pure).
 */

/** The HTTP status of an SDK failure; undefined when no answer came. */
export function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode
}

/** A failure worth another attempt: no answer at all, a server error, or "slow down". */
export function isTransient(error: unknown): boolean {
  const status = statusOf(error)
  return status === undefined || status >= 500 || status === 429 || status === 408
}

export function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name
  return (
    name === 'NotFound' ||
    name === 'NoSuchBucket' ||
    name === 'NoSuchUpload' ||
    statusOf(error) === 404
  )
}
