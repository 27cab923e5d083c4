/**
 * Tells a database that cannot be reached (refused, dropped, shutting down, out of connections)
 * from a fault in a query. The first is answered 503 while the pool waits for the server to come
 * back; the second stays a logged 500.
 * May touch: nothing (pure).
 */
import { isNetworkFailure } from '../network-failure.js'
import { StorageUnavailableError } from '../storage/unavailable.js'

/** SQLSTATEs of PostgreSQL going away or refusing connections (class 08, 57P01–57P03, 53300). */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/

/** node-postgres's own errors for a connection that broke or never came. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
]

/** Whether `error`, or an error it was caused by, says the database is out of reach. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    // The same socket errors from the storage are the storage's outage (storage/unavailable.ts).
    if (e instanceof StorageUnavailableError) return false
    const { code, message } = e as Error & { code?: unknown }
    if (isNetworkFailure(e) || (typeof code === 'string' && UNAVAILABLE_STATES.test(code))) {
      return true
    }
    if (DRIVER_MESSAGES.some((driverMessage) => message.startsWith(driverMessage))) return true
  }
  return false
}

/** Whether `error` at start says the database cannot be used as configured. */
export function isDatabaseRefusal(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    // Class 28: invalid authorization; 3D000: no such database.
    if (typeof code === 'string' && /^(28...|3D000)$/.test(code)) return true
  }
  return isDatabaseUnavailable(error)
}
