/**
 * Turns the usual reasons a correctly configured server still cannot start (an unusable DATA_DIR,
 * an unreachable or refusing DATABASE_URL, a HOST and PORT that cannot be listened on) into one
 * line, as settings errors give; anything else is a fault to report, stack included.
 * May touch: nothing (pure).
 */
import { sep } from 'node:path'

import type { Config } from './config.js'
import { isDatabaseRefusal } from './db/unavailable.js'

/** A start-up failure the operator fixes in the settings; its message is the line to print. */
export class StartupFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StartupFailure'
  }
}

type SystemError = { code?: unknown; syscall?: unknown; path?: unknown; message?: unknown }

const LISTEN_CODES = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOTFOUND', 'EAI_AGAIN'])
const LISTEN_CALLS = new Set(['listen', 'getaddrinfo', 'bind'])

/** The line for `error`, or undefined when it is not about DATA_DIR, HOST or PORT. */
export function describeStartupFailure(
  error: unknown,
  config: Pick<Config, 'dataDir' | 'host' | 'port' | 'databaseUrl'>,
): string | undefined {
  if (config.databaseUrl !== null && isDatabaseRefusal(error)) {
    // The address is not repeated: it may hold a password. node-postgres's messages hold none.
    const why = error instanceof Error ? error.message : String(error)
    return `DATABASE_URL cannot be used: ${why}`
  }
  const err = (error ?? {}) as SystemError
  const code = typeof err.code === 'string' ? err.code : undefined
  if (code === undefined) return undefined
  if (LISTEN_CALLS.has(err.syscall as string) && LISTEN_CODES.has(code)) {
    return `cannot listen on HOST ${JSON.stringify(config.host)} and PORT ${config.port}: ${code}`
  }
  const inDataDir =
    typeof err.path === 'string' &&
    (err.path === config.dataDir || err.path.startsWith(config.dataDir + sep))
  // better-sqlite3 names no path: SQLITE_CANTOPEN is the database file under DATA_DIR.
  if (inDataDir || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
    const why = typeof err.message === 'string' ? err.message : code
    return `DATA_DIR ${JSON.stringify(config.dataDir)} cannot be used: ${why}`
  }
  return undefined
}
