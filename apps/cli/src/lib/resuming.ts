/**
 * How `send` and `request send` resume an upload whose connection was lost (`--retries`), and
 * how `send --resume` picks up an unfinished upload from the history in another run.
 */
import {
  isConnectionLoss,
  type FileResumeOptions,
  type FileUploadState,
  type ResumeEvent,
} from '@fileshare/protocol'
import type { Command } from 'commander'

import { UsageError } from './errors.js'
import type { History, UnfinishedUpload } from './history.js'
import type { Payload } from './node-source.js'
import { formatBytes, parseDuration } from './units.js'

export const DEFAULT_RETRIES = '5m'

export function addRetriesOption(command: Command): Command {
  return command.option(
    '--retries <duration>',
    `how long to keep resuming after the connection is lost, such as 30s or 10m; 0 turns resuming off (default: ${DEFAULT_RETRIES})`,
  )
}

/** `--retries` in milliseconds. */
export function chooseRetries(text: string | undefined): number {
  const seconds = parseDuration(text ?? DEFAULT_RETRIES)
  if (seconds === null) {
    throw new UsageError(`--retries ${text} is not a duration, such as 30s, 5m or 0 for none`)
  }
  return seconds * 1000
}

/** The line a resume prints: `Connection lost; resumed at 412.0 MiB (attempt 2)`. */
export function resumedLine({ offset, attempt }: ResumeEvent): string {
  return `Connection lost; resumed at ${formatBytes(offset)} (attempt ${attempt})`
}

/** What the history keeps of a new upload besides the protocol's state. */
type UnfinishedStart = Pick<UnfinishedUpload, 'server' | 'sources' | 'fingerprint' | 'options'>

/**
 * Keeps an upload's resume state in the history from the moment the server names it, and
 * settles it when the upload ends: dropped when done or refused, kept when it may continue.
 */
export class UnfinishedKeeper {
  private constructor(
    private readonly history: History,
    /** The upload kept, once the server has named it. */
    private id: string | undefined,
    private readonly start?: UnfinishedStart,
  ) {}

  /** A keeper for a new upload whose payload can be read again (not standard input). */
  static for(
    history: History,
    payload: Payload,
    start: Omit<UnfinishedStart, 'fingerprint'>,
  ): UnfinishedKeeper | undefined {
    const fingerprint = payload.fingerprint
    return fingerprint
      ? new UnfinishedKeeper(history, undefined, { ...start, fingerprint })
      : undefined
  }

  /** Goes on keeping an upload already in the history (`send --resume`). */
  static resumed(history: History, upload: UnfinishedUpload): UnfinishedKeeper {
    return new UnfinishedKeeper(history, upload.id)
  }

  async keep(state: FileUploadState): Promise<void> {
    if (!this.start) return
    this.id = state.session.id
    await this.history.keepUnfinished({
      ...this.start,
      id: state.session.id,
      createdAt: new Date().toISOString(),
      ownerToken: state.ownerToken,
      state,
    })
  }

  /** The upload is complete: nothing is left to resume. */
  async done(): Promise<void> {
    if (this.id !== undefined) await this.history.dropUnfinished(this.id)
  }

  /**
   * After a failure: an upload left resumable (a lost connection, an interruption) keeps its
   * state and `warn` says how to continue; any other failure ended it, so its state goes.
   */
  async settle(error: unknown, signal: AbortSignal, warn: (line: string) => void): Promise<void> {
    if (this.id === undefined) return
    if (signal.aborted || isConnectionLoss(error)) {
      warn(`The upload can be continued with \`fileshare send --resume ${this.id}\``)
    } else {
      await this.history.dropUnfinished(this.id)
    }
  }
}

/**
 * The resume options of a file upload: resumed for `retryForMs` after each lost connection,
 * each resume told by `warn`; with a keeper, the state is kept in the history and an
 * interruption leaves the upload resumable.
 */
export function fileResumeOptions(
  retryForMs: number,
  warn: (line: string) => void,
  keeper: UnfinishedKeeper | undefined,
): FileResumeOptions | undefined {
  if (retryForMs <= 0) return undefined
  const resume: FileResumeOptions = {
    retryForMs,
    onResume: (event) => warn(resumedLine(event)),
  }
  if (keeper) {
    resume.keepOnAbort = true
    resume.onState = (state) => keeper.keep(state)
  }
  return resume
}
