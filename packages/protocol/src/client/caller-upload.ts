/**
 * How a file upload and an upload into a request pass their caller's progress, cancellation and
 * resume options to the transports: the session the server names reaches the caller as the
 * state that resuming in another run takes.
 */
import { toBase64Url } from '../encoding.js'
import type { ApiClient } from './api.js'
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
 * kind. It holds the upload's secret: keep it as private as a link.
 */
export interface UploadState {
  session: UploadSession
  /** The secret and the upload salt, canonical base64url. */
  secret: string
  salt: string
  /** The ciphertext size declared. */
  size: number
}

/** The state of an upload the server has named `session`. */
export function uploadState(
  session: UploadSession,
  secret: Uint8Array,
  salt: Uint8Array,
  size: number,
): UploadState {
  return { session, secret: toBase64Url(secret), salt: toBase64Url(salt), size }
}

/** Resuming after lost connections, with `onState` in place of the bare session. */
export interface StateResumeOptions<S> extends Omit<ResumeOptions, 'onSession'> {
  /** Awaited once the server has named the upload, before its first byte. */
  onState?: (state: S) => void | Promise<void>
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
    const { onState, ...resume } = caller.resume
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
