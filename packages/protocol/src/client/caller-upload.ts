/**
 * How a file upload and an upload into a request pass their caller's progress, cancellation and
 * resume options to the transports: the session the server names reaches the caller as the
 * state that resuming in another run takes.
 */
import { toBase64Url } from '../encoding.js'
import type { ApiClient } from './api.js'
import { recordCount } from '../sizes.js'
import { SealedRecords, type SealKeeper } from './sealed-records.js'
import type { PayloadSource } from './source.js'
import {
  resumeUpload,
  uploadCiphertext,
  type ResumeOptions,
  type UploadCallbacks,
  type UploadCiphertextOptions,
  type UploadResult,
  type UploadSession,
} from './upload.js'

/**
 * What continuing any upload in another run takes besides the same source and the fields of its
 * kind (which hold the secret, or what the password protects).
 */
export interface UploadState {
  session: UploadSession
  /** The upload salt, canonical base64url. */
  salt: string
  /** The ciphertext size declared. */
  size: number
}

/** The state of an upload the server has named `session`. */
export function uploadState(session: UploadSession, salt: Uint8Array, size: number): UploadState {
  return { session, salt: toBase64Url(salt), size }
}

/**
 * An unfinished upload to continue in another run: its state, and the tags of the records it
 * sealed (what `onSealed` was given, from record 0), which prove its source unchanged. Without
 * tags nothing proves it: the upload starts afresh under a new secret.
 */
export interface KeptState<S> {
  state: S
  sealed: Uint8Array | undefined
}

/** Resuming after lost connections, with `onState` in place of the bare session. */
export interface StateResumeOptions<S> extends Omit<ResumeOptions, 'onSession'> {
  /** Awaited once the server has named the upload, before its first byte. */
  onState?: (state: S) => void | Promise<void>
  /**
   * Awaited before records leave: keeps the tags of records `index`, `index + 1`, … (16 bytes
   * each) with the state, for `KeptState.sealed` in another run. Called only after `onState`.
   */
  onSealed?: SealKeeper
}

/** What a caller of `sendFile` or `sendToRequest` gives besides the payload. */
export interface CallerUploadOptions<S> extends UploadCallbacks {
  resume?: StateResumeOptions<S> | undefined
}

/**
 * The transport options of `upload` with the caller's callbacks and resume options; `stateOf`
 * makes the caller's state of the session the server names.
 */
export function withCallerOptions<S>(
  upload: Pick<UploadCiphertextOptions, 'target' | 'size' | 'ciphertext'>,
  caller: CallerUploadOptions<S>,
  stateOf: (named: UploadSession) => S,
): UploadCiphertextOptions {
  const options: UploadCiphertextOptions = { ...upload }
  if (caller.onProgress) options.onProgress = caller.onProgress
  if (caller.signal) options.signal = caller.signal
  if (caller.resume) {
    const { onState, onSealed: _keptByTheCipher, ...resume } = caller.resume
    options.resume = { ...resume, onSession: (named) => onState?.(stateOf(named)) }
  }
  return options
}

/** Starts the upload, or continues `session` when there is one. */
export function startOrResume(
  api: ApiClient,
  session: UploadSession | undefined,
  options: UploadCiphertextOptions,
): Promise<UploadResult> {
  return session ? resumeUpload(api, session, options) : uploadCiphertext(api, options)
}

/**
 * The record tags of an upload of `source`: those an earlier run kept (none for a new upload),
 * and from now on kept by the caller's `onSealed`.
 */
export function sealedRecords(
  source: PayloadSource,
  sealed: Uint8Array | undefined,
  resume: { onSealed?: SealKeeper | undefined } | undefined,
): SealedRecords {
  return new SealedRecords(recordCount(source.size), sealed, resume?.onSealed)
}
