/**
 * The server's log: one line per entry, errors and warnings to stderr, the rest to stdout, and
 * nothing below the configured level (`LOG_LEVEL`).
 * May touch: process state (stdout, stderr).
 */
import type { LogLevel } from './config.js'

type LogFn = (message: string, detail?: unknown) => void

type EntryLevel = Exclude<LogLevel, 'silent'>

export interface Logger {
  error: LogFn
  warn: LogFn
  info: LogFn
  debug: LogFn
  /** Whether entries of `level` are written, so callers can skip building them; absent: all are. */
  enabled?: (level: EntryLevel) => boolean
}

type LogStream = { write(line: string): unknown }

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 }

export function createLogger(
  level: LogLevel,
  streams: { stdout: LogStream; stderr: LogStream } = process,
  now: () => Date = () => new Date(),
): Logger {
  const enabled = (entryLevel: EntryLevel) => RANK[entryLevel] <= RANK[level]
  const entry = (entryLevel: EntryLevel, stream: LogStream): LogFn => {
    if (!enabled(entryLevel)) return () => undefined
    return (message, detail) => {
      const parts = [now().toISOString(), entryLevel.toUpperCase(), oneLine(message)]
      if (detail !== undefined) parts.push(describe(detail))
      stream.write(`${parts.join(' ')}\n`)
    }
  }
  return {
    error: entry('error', streams.stderr),
    warn: entry('warn', streams.stderr),
    info: entry('info', streams.stdout),
    debug: entry('debug', streams.stdout),
    enabled,
  }
}

/** Line breaks and other control characters are escaped, so one entry is always one line. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) => JSON.stringify(char).slice(1, -1))
}

/** An error with its stack, or any other value as JSON. */
function describe(detail: unknown): string {
  if (detail instanceof Error) return oneLine(detail.stack ?? `${detail.name}: ${detail.message}`)
  try {
    return oneLine(JSON.stringify(detail) ?? String(detail))
  } catch {
    return oneLine(String(detail))
  }
}
