/**
 * A storage that cannot be reached (refused, dropped, unknown host): an outage answered 503 and
 * logged as the storage's, not a fault of the request and not the database's.
 * May touch: nothing (pure).
 */
import { isNetworkFailure } from '../network-failure.js'

export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The storage is unavailable', { cause })
    this.name = 'StorageUnavailableError'
  }
}

/** Whether `error`, or an error it was caused by, says the storage is out of reach. */
export function isStorageUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StorageUnavailableError) return true
  }
  return false
}

/** `error` as a storage outage when it is a network failure (its own or its cause's). */
export function asStorageFailure(error: unknown): unknown {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (isNetworkFailure(e)) return new StorageUnavailableError(error)
  }
  return error
}
