/**
 * Turns any failure into one line on stderr (and, with `--json`, one JSON object on stdout) and
 * the exit code: 1 usage, 2 refused by the server (its message verbatim), 3 network or integrity
 * failure, 130 interrupted.
 */
import {
  API_TOKEN_MESSAGES,
  ApiError,
  escapeControls,
  isAbortError,
  ProtocolError,
} from '@fileshare/protocol'
import { CommanderError } from 'commander'

import { CliError, EXIT } from './lib/errors.js'

export interface ErrorReport {
  message: string
  exitCode: number
  /** HTTP status of a refusal. */
  status?: number
  /** ProtocolError code or system error code. */
  code?: string
  retryAfterSec?: number
  /** A 410 of an item the server's operator took down. */
  removed?: boolean
  /** Commander, or the command itself, printed it already. */
  printed?: boolean
  /** The command wrote its own `--json` result, which says what failed. */
  reported?: boolean
}

const LOGIN_REQUIRED = 'Login required'

const USER_SYSTEM_ERRORS = new Set([
  'ENOENT',
  'EACCES',
  'EEXIST',
  'EISDIR',
  'ENOTDIR',
  'EPERM',
  'ENOSPC',
  'EROFS',
  'ENAMETOOLONG',
  'EMFILE',
])

function formatWait(seconds: number): string {
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} min`
  return `${Math.ceil(seconds / 3600)} h`
}

export function describeError(error: unknown): ErrorReport {
  if (error instanceof CommanderError) {
    const message = error.message.replace(/^error: /, '')
    return { message, exitCode: error.exitCode, code: error.code, printed: true }
  }
  if (error instanceof CliError) {
    const report: ErrorReport = { message: error.message, exitCode: error.exitCode }
    return error.printed ? { ...report, printed: true, reported: true } : report
  }
  if (error instanceof ApiError) {
    const report: ErrorReport = {
      message: error.message,
      exitCode: EXIT.REFUSED,
      status: error.status,
    }
    // Taken down by the operator, not expired: the server's 410 says so (docs/api.md, Takedown).
    if (error.removed) {
      report.removed = true
      if (error.takedown) report.message = `${error.message} (${error.takedown})`
    }
    if (error.status === 401 && error.message === LOGIN_REQUIRED) {
      report.message = `${error.message}: run \`fileshare login\` to sign in to this server`
    }
    if (error.status === 401 && error.message === API_TOKEN_MESSAGES.invalidToken) {
      report.message = `${error.message}: make a new one, or run \`fileshare logout\``
    }
    if (error.retryAfterSec !== null) {
      report.retryAfterSec = error.retryAfterSec
      report.message = `${report.message} (retry in ${formatWait(error.retryAfterSec)})`
    }
    return report
  }
  if (error instanceof ProtocolError) {
    switch (error.code) {
      case 'NETWORK':
      case 'DECRYPT_FAILED':
      case 'TRUNCATED':
      case 'BAD_ENCODING':
        return { message: error.message, exitCode: EXIT.FAILED, code: error.code }
      case 'WRONG_PASSWORD':
        return { message: error.message, exitCode: EXIT.REFUSED, code: error.code }
      default:
        return { message: error.message, exitCode: EXIT.USAGE, code: error.code }
    }
  }
  if (isAbortError(error)) return { message: 'Cancelled', exitCode: EXIT.INTERRUPTED }
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (typeof code === 'string' && USER_SYSTEM_ERRORS.has(code)) {
    return { message: (error as Error).message, exitCode: EXIT.USAGE, code }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { message: message || 'Unexpected error', exitCode: EXIT.USAGE }
}

export interface ErrorStreams {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
}

/** Prints the failure and answers the exit code. */
export function handleError(
  error: unknown,
  json: boolean,
  streams: ErrorStreams = process,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const report = describeError(error)
  if (report.exitCode === 0) return 0
  // The message may be a server's: its control characters are shown, never sent to the terminal.
  if (!report.printed) streams.stderr.write(`fileshare: ${escapeControls(report.message)}\n`)
  if (env.FILESHARE_DEBUG && error instanceof Error && error.stack) {
    streams.stderr.write(`${error.stack}\n`)
  }
  if (json && !report.reported) {
    const { printed: _printed, reported: _reported, message, ...rest } = report
    streams.stdout.write(`${JSON.stringify({ error: message, ...rest })}\n`)
  }
  return report.exitCode
}
