/**
 * Options several commands share, and the checks of chosen values against what the server's
 * `/api/config` allows, listing the allowed values on a bad choice.
 */
import { lstat } from 'node:fs/promises'

import { Option, type Command } from 'commander'

import { parseBytes } from '@fileshare/protocol'

import { UsageError } from './errors.js'
import { DEFAULT_SERVER, SERVER_ENV } from './server.js'
import { formatBytes, formatDuration, parseDuration } from './units.js'
import { PASSWORD_ENV } from './prompts.js'

export function addServerOption(command: Command): Command {
  return command.option(
    '-s, --server <url>',
    `fileshare server (default: $${SERVER_ENV}, else "server" in config.json, else ${DEFAULT_SERVER})`,
  )
}

export function addJsonOption(command: Command): Command {
  return command.option('--json', 'print one JSON object for scripts instead of text')
}

/** `-q, --quiet` of the commands that transfer: no progress and no status lines. */
export function addQuietOption(command: Command): Command {
  return command.option(
    '-q, --quiet',
    'print no progress or status lines on stderr (results, warnings and errors still show)',
  )
}

/** `--password [password]`: a value, or asked without echo (or read from FILESHARE_PASSWORD). */
export function addPasswordOption(command: Command, description: string): Command {
  return command.addOption(
    new Option(
      '-p, --password [password]',
      `${description}; asked without echo when no value is given (or read from $${PASSWORD_ENV})`,
    ),
  )
}

/**
 * Refuses a `--password` value that names an existing file or folder. The option's value is
 * optional, so `send --password a.txt b.txt`, meant to ask for the password, would take a.txt as
 * the password and send b.txt alone.
 */
export async function refusePathAsPassword(option: string | boolean | undefined): Promise<void> {
  if (typeof option !== 'string' || option === '') return
  const isPath = await lstat(option).then(
    () => true,
    () => false,
  )
  if (!isPath) return
  throw new UsageError(
    `--password ${option} names a file or folder here, which would then not be sent; ` +
      `to be asked for the password, put --password after the paths, or set $${PASSWORD_ENV}`,
  )
}

export function addQrOption(command: Command, what: string): Command {
  return command.option('--qr', `also show ${what} as a QR code on stderr, to open it on a phone`)
}

export function addWebSocketOption(command: Command): Command {
  return command.option(
    '--no-websocket',
    'upload over chunked HTTP only, without trying the WebSocket',
  )
}

/** How a chooser reads a value and lists the allowed ones; `what` names a value it cannot read. */
interface ChoiceKind {
  parse(text: string): number | null
  format(value: number): string
  what?: string
}

/**
 * A chooser of a value among the allowed ones (the default when none was given), refusing any
 * other with the allowed values listed.
 */
function chooserOf(kind: ChoiceKind) {
  return (flag: string, text: string | undefined, allowed: readonly number[], fallback: number) => {
    if (text === undefined) return fallback
    const value = kind.parse(text)
    if (value !== null && allowed.includes(value)) return value
    const list = allowed.map(kind.format).join(', ')
    throw new UsageError(
      value === null && kind.what !== undefined
        ? `${flag} ${text} is not ${kind.what}; this server allows ${list}`
        : `${flag} ${text} is not allowed by this server; choose one of ${list}`,
    )
  }
}

/** A duration among the allowed ones; the default when none was given. */
export const chooseDuration = chooserOf({
  parse: parseDuration,
  format: formatDuration,
  what: 'a duration',
})

/** A count among the allowed ones; the default when none was given. */
export const chooseCount = chooserOf({
  parse: (text) => (/^\s*\d+\s*$/.test(text) ? Number(text) : null),
  format: String,
})

/** A size from 1 byte up to `max`; `max` when none was given. */
export function chooseSize(flag: string, text: string | undefined, max: number): number {
  if (text === undefined) return max
  let bytes: number
  try {
    bytes = parseBytes(text)
  } catch (error) {
    throw new UsageError(`${flag} ${(error as Error).message}`, { cause: error })
  }
  if (bytes < 1) throw new UsageError(`${flag} ${text} is not a size of at least 1 byte`)
  if (bytes > max) {
    throw new UsageError(`${flag} ${text} is over this server's limit of ${formatBytes(max)}`)
  }
  return bytes
}

/** An example block for `--help`. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`
}
