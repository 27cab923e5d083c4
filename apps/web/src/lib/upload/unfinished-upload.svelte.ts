/**
 * A page's resumable upload, the same for a normal upload and one into a request: the state kept
 * in localStorage (its record tags in IndexedDB) and offered to resume after a reload, what the page says while a lost
 * connection is resumed, and what an upload that failed leaves behind (docs/web.md, "Resuming
 * uploads").
 */
import {
  isAbortError,
  isApiError,
  isConnectionLoss,
  isProtocolError,
  type UploadProgress,
} from '@fileshare/protocol'

import { errorMessage } from '../errors'
import { formatBytes } from '../format-bytes'
import { t } from '../i18n/t'
import type { CallOptions } from '../worker/client'
import type { SendFilesInput, UploadEvent } from '../worker/methods'
import type { PickedEntry } from './entries'
import {
  archiveZoneOf,
  clearResumeState,
  fingerprintOf,
  loadResumeState,
  originStorage,
  resumeRefusal,
  saveResumeState,
  type KeptUpload,
  type ResumeSlot,
  type ResumeStorage,
} from './resume-state'
import { dropSealTags } from './seal-tags'

/** How an upload that did not complete ended, for the page's own message. */
export type UploadEnd = 'cancelled' | 'gone' | 'failed'

/** The protocol client's state of the upload a kept state `S` continues. */
type UploadOf<S extends KeptUpload> = S['upload']

/** The picked entries an upload sends, and the zone an archive's times are written in. */
export type UploadFiles = Pick<SendFilesInput, 'entries' | 'utcOffsetMinutes'>

/** What the worker's upload calls report: progress, and the events `follow` takes. */
export type UploadCallOptions<U> = CallOptions<UploadProgress | UploadEvent<U>>

/** One upload of the picked entries, new or continuing a kept one, as a page starts it. */
export interface UploadRun<S extends KeptUpload, R> {
  entries: PickedEntry[]
  /** The kept upload the entries continue, or null for a new upload. */
  from: S | null
  /** The names a new upload is offered under after a reload; a resumed one keeps its own. */
  label: string
  signal: AbortSignal
  onProgress: (progress: UploadProgress) => void
  /** The state kept once the server names the upload: every kept upload's fields, and the page's. */
  keep: (kept: KeptUpload<UploadOf<S>>) => S
  /** Starts the upload of `files`. */
  send: (files: UploadFiles, options: UploadCallOptions<UploadOf<S>>) => Promise<R>
  /** Continues the kept upload `state` with the same `files`. */
  resume: (
    files: UploadFiles,
    state: UploadOf<S>,
    options: UploadCallOptions<UploadOf<S>>,
  ) => Promise<R>
}

/** How a run ended: what the upload answered, or how it did not complete and why. */
export type UploadOutcome<R> = { sent: R } | { end: UploadEnd; cause: unknown }

export interface UnfinishedUploadOptions<S extends KeptUpload> {
  slot: ResumeSlot<S>
  /**
   * Ends the upload's session on the server after a cancel, or when it is given up: neither a
   * cancel while the upload waits to resume nor a kept upload has a connection whose close would.
   */
  end: (state: S) => Promise<void>
}

export class UnfinishedUpload<S extends KeptUpload> {
  /** The upload this page began and did not finish, offered to resume. */
  kept = $state.raw<S | null>(null)
  /** After a lost connection: "resuming…", then where the upload resumed. */
  connection = $state<string | null>(null)
  /** The kept upload cannot continue with the picked files (or at all): offer a new one. */
  refused = $state(false)
  /** Why ending a cancelled upload's session failed, as the server said it. */
  endFailure = $state<string | null>(null)
  /** A given-up upload's session is being ended: a request's slot it holds is not free yet. */
  ending = $state(false)

  readonly #options: UnfinishedUploadOptions<S>
  readonly #storage: ResumeStorage

  constructor(options: UnfinishedUploadOptions<S>) {
    this.#options = options
    this.#storage = originStorage()
    this.kept = loadResumeState(this.#storage, options.slot)
  }

  /**
   * Drops the kept upload here (done, cancelled or refused) with its record tags; the server's
   * session is left.
   */
  forget(): void {
    const id = this.kept?.upload.session.id
    clearResumeState(this.#storage, this.#options.slot)
    if (id !== undefined) void dropSealTags(id).catch(() => undefined)
    this.kept = null
    this.refused = false
  }

  /**
   * "Start a new upload": the kept upload is given up, and its session ended on the server so
   * that its quota (and a request's slot) is not held until it idles out.
   */
  discard(): void {
    const state = this.kept
    this.forget()
    if (state) void this.#endSession(state)
  }

  /**
   * The message refusing `entries` as the files of the kept upload, which is then offered to be
   * discarded; null when they are its files.
   */
  mismatch(entries: readonly PickedEntry[]): string | null {
    if (!this.kept || resumeRefusal(this.kept, entries) === undefined) return null
    this.refused = true
    return t('upload.resumeMismatch')
  }

  /**
   * Runs one upload: continues `run.from` with the same entries (in the zone it began in) or
   * starts a new one, keeps its state once named, and says how it ended.
   */
  async run<R>(run: UploadRun<S, R>): Promise<UploadOutcome<R>> {
    const { entries, from, signal } = run
    this.begin()
    const utcOffsetMinutes = archiveZoneOf(from)
    const label = from ? from.label : run.label
    const stateOf = (upload: UploadOf<S>): S =>
      run.keep({
        version: 1,
        upload,
        fingerprint: fingerprintOf(entries, upload.size, utcOffsetMinutes),
        label,
      })
    const files = { entries, utcOffsetMinutes }
    const options: UploadCallOptions<UploadOf<S>> = {
      signal,
      onProgress: (value) => {
        if ('kind' in value) this.follow(value, stateOf)
        else run.onProgress(value)
      },
    }
    try {
      const sent = from
        ? await run.resume(files, from.upload, options)
        : await run.send(files, options)
      this.completed()
      return { sent }
    } catch (cause) {
      return { end: this.failed(cause, signal, from !== null), cause }
    }
  }

  /** An upload (new or resumed) starts. */
  begin(): void {
    this.connection = null
    this.refused = false
    this.endFailure = null
  }

  /** Follows the upload: keeps its state (from `stateOf`) once named, tells of each resume. */
  follow<U>(event: UploadEvent<U>, stateOf: (upload: U) => S): void {
    if (event.kind === 'state') {
      const state = stateOf(event.state)
      saveResumeState(this.#storage, this.#options.slot, state)
      // A kept upload that started afresh (nothing proved its files) leaves its tags behind.
      const before = this.kept?.upload.session.id
      if (before !== undefined && before !== state.upload.session.id) {
        void dropSealTags(before).catch(() => undefined)
      }
      this.kept = state
    } else if (event.kind === 'lost') {
      this.connection = t('upload.resuming')
    } else {
      this.connection = t('upload.resumedAt', { size: formatBytes(event.event.offset) })
    }
  }

  /** The upload completed: nothing is left to resume. */
  completed(): void {
    this.connection = null
    this.forget()
  }

  /**
   * The upload failed with `cause`: one whose connection stayed lost stays resumable, anything
   * else is forgotten, and a cancelled one's session is ended on the server. `resumed`: it
   * continued a kept upload, for which a 404 means the server no longer has it.
   */
  failed(cause: unknown, signal: AbortSignal, resumed: boolean): UploadEnd {
    this.connection = null
    const started = this.kept
    // A wrong password leaves the kept upload as it was, to be resumed with the right one.
    if (!isConnectionLoss(cause, signal) && !isProtocolError(cause, 'WRONG_PASSWORD')) {
      this.forget()
    }
    if (isAbortError(cause)) {
      if (started) void this.#endSession(started)
      return 'cancelled'
    }
    if (resumed && isApiError(cause, 404)) {
      this.refused = true
      return 'gone'
    }
    return 'failed'
  }

  async #endSession(state: S): Promise<void> {
    this.ending = true
    try {
      await this.#options.end(state)
    } catch (cause) {
      // Already ended (404) is what was wanted; unreachable, it idles out on the server
      // (UPLOAD_SESSION_IDLE_SEC) as any lost upload does.
      if (isApiError(cause, 404) || isConnectionLoss(cause)) return
      this.endFailure = errorMessage(cause)
    } finally {
      this.ending = false
    }
  }
}
