/**
 * How `send` and `request send` resume an upload whose connection was lost (`--retries`), and
 * how `send --resume` picks up an unfinished upload from the history in another run.
 */
import {
  encryptedSize,
  fingerprintChange,
  isConnectionLoss,
  isLockedFileUploadState,
  isProtocolError,
  type FileMetadata,
  type FileUploadState,
  type KeptState,
  type PayloadSource,
  type RecordCipher,
  type ResumeEvent,
  type SealKeeper,
  type StateResumeOptions,
  type UploadProgress,
} from '@fileshare/protocol'
import { resolve } from 'node:path'

import type { Command } from 'commander'

import { UsageError } from './errors.js'
import type {
  History,
  UnfinishedBase,
  UnfinishedRequestUpload,
  UnfinishedUpload,
} from './history.js'
import type { Context } from './context.js'
import { nodeRecords } from './node-records.js'
import { localUtcOffsetMinutes, type Payload } from './node-source.js'
import type { Output } from './output.js'
import { openSendInput, type SendInput } from './send-input.js'
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

/**
 * The lines of `send --resume`: its first status is where this run starts, later ones follow
 * lost connections.
 */
export function resumedFromLine(id: string, { offset, attempt }: ResumeEvent): string {
  return attempt === 1
    ? `Resuming upload ${id} at ${formatBytes(offset)}`
    : resumedLine({ offset, attempt: attempt - 1 })
}

/**
 * The sources of an unfinished upload read again, after checking that they are what they were
 * when it began (docs/crypto.md, "Resuming"): any change refuses the resume.
 */
async function openResumedInput(
  unfinished: UnfinishedUpload,
  ctx: Context,
  output: Output,
): Promise<SendInput> {
  const input = await openSendInput(unfinished.sources, {
    fromStdin: false,
    name: undefined,
    stdin: ctx.stdin,
    maxBytes: Number.MAX_SAFE_INTEGER,
    warn: (line) => output.warn(line),
    utcOffsetMinutes: unfinished.fingerprint.utcOffsetMinutes ?? localUtcOffsetMinutes(),
  }).catch((error: unknown) => {
    // A source that is gone cannot be sent again: the same refusal as a changed one.
    throw new UsageError(`${(error as Error).message}; the upload cannot be resumed`)
  })
  const change = fingerprintChange(unfinished.fingerprint, input.payload.fingerprint!)
  if (change !== undefined) {
    await input.close()
    throw new UsageError(change)
  }
  return input
}

/** The fields of each kind of unfinished upload besides those they all have. */
type OwnFields<U> = U extends unknown ? Omit<U, keyof UnfinishedBase> : never

/** What the protocol hands over once the server names an upload. */
interface NamedState {
  session: { id: string }
}

/**
 * Keeps an upload's resume state in the history from the moment the server names it, with the
 * tags of its records as they are sealed, and settles it when the upload ends: dropped when done
 * or refused, kept when it may continue.
 */
export class UnfinishedKeeper<S extends NamedState = NamedState> {
  private constructor(
    private readonly history: History,
    /** The upload kept, once the server has named it. */
    private id: string | undefined,
    private readonly entry: (state: S) => UnfinishedUpload,
  ) {}

  /**
   * A keeper for a new upload that resumes (`retryForMs` > 0) and whose payload can be read
   * again (not standard input); `own` gives the fields of its kind from the protocol's state.
   */
  static for<S extends NamedState>(
    history: History,
    payload: Payload,
    start: { server: string; paths: readonly string[]; retryForMs: number },
    own: (state: S) => OwnFields<UnfinishedUpload>,
  ): UnfinishedKeeper<S> | undefined {
    const fingerprint = payload.fingerprint
    if (!fingerprint || start.retryForMs <= 0) return undefined
    const sources = start.paths.map((path) => resolve(path))
    return new UnfinishedKeeper<S>(history, undefined, (state) => {
      const base: UnfinishedBase = {
        id: state.session.id,
        server: start.server,
        createdAt: new Date().toISOString(),
        sources,
        fingerprint,
      }
      return { ...own(state), ...base }
    })
  }

  /**
   * Goes on keeping an upload already in the history (`send --resume`); should it start afresh
   * under a new session, that one takes its place.
   */
  static resumed(history: History, upload: UnfinishedUpload): UnfinishedKeeper<UnfinishedState> {
    return new UnfinishedKeeper<UnfinishedState>(history, upload.id, (state) =>
      restarted(upload, state),
    )
  }

  async keep(state: S): Promise<void> {
    const before = this.id
    this.id = state.session.id
    await this.history.keepUnfinished(this.entry(state))
    if (before !== undefined && before !== this.id) await this.history.dropUnfinished(before)
  }

  /** Keeps the tags of records `index`… of the upload kept (named by then). */
  readonly keepTags: SealKeeper = (index, tags) => {
    if (this.id === undefined) return Promise.reject(new Error('The upload has no id yet'))
    return this.history.sealKeeper(this.id)(index, tags)
  }

  /** The upload is complete: nothing is left to resume. */
  async done(): Promise<void> {
    if (this.id !== undefined) await this.history.dropUnfinished(this.id)
  }

  /**
   * After a failure: an upload left resumable (a lost connection, an interruption, a wrong
   * password) keeps its state and `warn` says how to continue; any other failure ended it, so
   * its state goes.
   */
  async settle(error: unknown, signal: AbortSignal, warn: (line: string) => void): Promise<void> {
    if (this.id === undefined) return
    if (signal.aborted || isConnectionLoss(error) || isProtocolError(error, 'WRONG_PASSWORD')) {
      warn(`The upload can be continued with \`fileshare send --resume ${this.id}\``)
    } else {
      await this.history.dropUnfinished(this.id)
    }
  }
}

/** The state of either kind of unfinished upload, as the protocol hands it over. */
type UnfinishedState = UnfinishedUpload['state']

/** The entry of `upload` started afresh under the session of `state`. */
function restarted(upload: UnfinishedUpload, state: UnfinishedState): UnfinishedUpload {
  const renamed = { id: state.session.id, createdAt: new Date().toISOString() }
  if (upload.kind === 'request') {
    return { ...upload, ...renamed, state: state as UnfinishedRequestUpload['state'] }
  }
  const { ownerToken: _old, ...rest } = upload
  const fileState = state as FileUploadState
  return { ...rest, ...renamed, state: fileState, ...ownerTokenOf(fileState) }
}

/** The owner token a file upload's history entry keeps: none for a password-protected one. */
export function ownerTokenOf(state: FileUploadState): { ownerToken?: string } {
  return isLockedFileUploadState(state) ? {} : { ownerToken: state.ownerToken }
}

/**
 * The resume options of an upload: resumed for `retryForMs` after each lost connection,
 * each resume told by `warn`; with a keeper, the state and the record tags are kept in the
 * history and an interruption leaves the upload resumable.
 */
function keptResumeOptions<S extends NamedState>(
  retryForMs: number,
  warn: (line: string) => void,
  keeper: UnfinishedKeeper<S> | undefined,
): StateResumeOptions<S> | undefined {
  if (retryForMs <= 0) return undefined
  const resume: StateResumeOptions<S> = {
    retryForMs,
    onResume: (event) => warn(resumedLine(event)),
  }
  if (keeper) {
    resume.keepOnAbort = true
    resume.onState = (state) => keeper.keep(state)
    resume.onSealed = keeper.keepTags
  }
  return resume
}

/** What every upload of the CLI hands the protocol besides the options of its kind. */
export interface UploadRun<R> {
  metadata: FileMetadata
  fileCount: number
  onProgress: (progress: UploadProgress) => void
  signal: AbortSignal
  cipher: RecordCipher
  resume: R | undefined
}

/**
 * Runs an upload of `payload` under a progress bar and settles its kept state: dropped once it is
 * complete, and after a failure kept or dropped as `UnfinishedKeeper.settle` says.
 */
async function keptUpload<R, T>(
  ctx: Context,
  output: Output,
  payload: Payload,
  size: number,
  kept: { keeper: UnfinishedKeeper<never> | undefined; resume: R | undefined },
  upload: (run: UploadRun<R>) => Promise<T>,
): Promise<T> {
  const bar = output.progress('Uploading', size)
  let result: T
  try {
    result = await upload({
      metadata: payload.metadata,
      fileCount: payload.fileCount,
      onProgress: ({ sentBytes, totalBytes }) => bar.update(sentBytes, totalBytes),
      signal: ctx.signal,
      cipher: nodeRecords,
      resume: kept.resume,
    })
  } catch (error) {
    await kept.keeper?.settle(error, ctx.signal, (line) => output.warn(line))
    throw error
  } finally {
    bar.stop()
  }
  await kept.keeper?.done()
  return result
}

/**
 * A new upload of `payload` (`send`, `request send`): resumed after lost connections for
 * `start.retryForMs`, and kept in the history meanwhile when it can continue in another run;
 * `own` gives the history fields of its kind from the protocol's state.
 */
export function runNewUpload<S extends NamedState, T>(
  ctx: Context,
  output: Output,
  payload: Payload,
  keeping: {
    start: { server: string; paths: readonly string[]; retryForMs: number }
    own: (state: S) => OwnFields<UnfinishedUpload>
  },
  upload: (run: UploadRun<StateResumeOptions<S>>) => Promise<T>,
): Promise<T> {
  const { start, own } = keeping
  const keeper = UnfinishedKeeper.for(ctx.history, payload, start, own)
  const resume = keptResumeOptions(start.retryForMs, (line) => output.warn(line), keeper)
  const size = encryptedSize(payload.source.size)
  return keptUpload(ctx, output, payload, size, { keeper, resume }, upload)
}

/**
 * `send --resume` of an unfinished upload: its sources read again and checked (as
 * `openResumedInput` does), the upload continued from its state and the record tags kept with
 * it, then `finish` with the payload and what the upload gave; the sources are closed after.
 * Without kept tags nothing proves the sources unchanged: the upload starts afresh, and says so.
 */
export async function runResumedUpload<U extends UnfinishedUpload, T>(
  ctx: Context,
  output: Output,
  unfinished: U,
  retries: string | undefined,
  upload: (
    source: PayloadSource,
    kept: KeptState<U['state']>,
    run: UploadRun<StateResumeOptions<U['state']>>,
  ) => Promise<T>,
  finish: (payload: Payload, sent: T) => Promise<void>,
): Promise<void> {
  const input = await openResumedInput(unfinished, ctx, output)
  try {
    const { payload } = input
    const sealed = await ctx.history.sealTags(unfinished.id)
    if (sealed === undefined) {
      output.warn(`Nothing kept proves that the files are unchanged: sending them again in full`)
    }
    const keeper = UnfinishedKeeper.resumed(ctx.history, unfinished)
    const kept = { keeper, resume: resumedRunOptions(unfinished, retries, output, keeper) }
    const sent = await keptUpload(ctx, output, payload, unfinished.state.size, kept, (run) =>
      upload(payload.source, { state: unfinished.state, sealed }, run),
    )
    await finish(payload, sent)
  } finally {
    await input.close()
  }
}

/**
 * The resume options of `send --resume`: kept on an interruption, each resume told, the record
 * tags kept on, and a new state kept should the upload start afresh.
 */
function resumedRunOptions(
  unfinished: UnfinishedUpload,
  retries: string | undefined,
  output: Output,
  keeper: UnfinishedKeeper<UnfinishedState>,
): StateResumeOptions<UnfinishedState> {
  return {
    retryForMs: chooseRetries(retries),
    keepOnAbort: true,
    onResume: (event) => output.warn(resumedFromLine(unfinished.id, event)),
    onState: (state) => keeper.keep(state),
    onSealed: keeper.keepTags,
  }
}
