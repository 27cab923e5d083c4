/**
 * Errors the command line raises itself. Each carries the exit code it ends with; errors from the
 * protocol package and the operating system are mapped in handle-error.ts.
 */

/** Exit codes of every command (documented in `fileshare --help`). */
export const EXIT = {
  OK: 0,
  /** Bad arguments or options, unreadable input, a file that would be overwritten. */
  USAGE: 1,
  /** The server refused the call; its message is shown. */
  REFUSED: 2,
  /** The network failed, or downloaded data did not authenticate. */
  FAILED: 3,
  /** Interrupted with Ctrl-C. */
  INTERRUPTED: 130,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

export class CliError extends Error {
  readonly exitCode: ExitCode
  /** The command has already told the user (and written its `--json` result): only exit. */
  readonly printed: boolean

  constructor(
    message: string,
    exitCode: ExitCode,
    options?: { cause?: unknown; printed?: boolean },
  ) {
    super(message, options)
    this.name = 'CliError'
    this.exitCode = exitCode
    this.printed = options?.printed === true
  }
}

/** The user asked for something that cannot be done as asked. */
export class UsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.USAGE, options)
    this.name = 'UsageError'
  }
}

/** An archive entry that would escape the target or is not a plain file or folder. */
export class UnsafeArchiveError extends CliError {
  constructor(message: string) {
    super(`Refused to extract the archive: ${message}`, EXIT.FAILED)
    this.name = 'UnsafeArchiveError'
  }
}

/** A server whose `GET /api/config` is not fileshare's: a wrong `--server` address, most likely. */
export class NotFileshareServerError extends CliError {
  constructor(baseUrl: string, answer: string) {
    super(
      `${baseUrl} does not look like a fileshare server (GET /api/config answered ${answer})`,
      EXIT.FAILED,
    )
    this.name = 'NotFileshareServerError'
  }
}
