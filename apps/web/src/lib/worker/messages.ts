/**
 * What the page and the worker say to each other: calls, their progress, results and errors.
 * Errors cross the boundary as plain objects and come back as the client core's own classes, so
 * pages branch on `ApiError.status` and `ProtocolError.code` exactly as in the worker.
 */
import { ApiError, isAbortError, ProtocolError, type ProtocolErrorCode } from '@fileshare/protocol'

export interface CallMessage {
  type: 'call'
  id: number
  method: string
  args: unknown[]
  /**
   * Where a download's plaintext goes instead of back to the page: one end of a channel whose
   * other end the page gave the service worker (streams.ts `streamToPort`).
   */
  sink?: MessagePort
}

export interface AbortMessage {
  type: 'abort'
  id: number
}

export type ToWorker = CallMessage | AbortMessage

export interface ProgressMessage {
  type: 'progress'
  id: number
  value: unknown
}

export interface ResultMessage {
  type: 'result'
  id: number
  value: unknown
  /** Keys of `value` whose stream arrives through a MessagePort (no transferable streams). */
  portStreams?: string[]
}

export interface ErrorMessage {
  type: 'error'
  id: number
  error: SerializedError
}

/** A plaintext sent to a call's `sink` has gone out whole, or failed with `error`. */
export interface EndMessage {
  type: 'end'
  id: number
  error?: SerializedError
}

export type FromWorker = ProgressMessage | ResultMessage | ErrorMessage | EndMessage

export interface SerializedError {
  /** Marks the object, also when it errors a stream instead of a call. */
  fileshareError: true
  kind: 'api' | 'protocol' | 'abort' | 'other'
  name: string
  message: string
  status?: number
  retryAfterSec?: number | null
  details?: unknown
  /** A takedown's 410 (ApiError.removed and .takedown). */
  removed?: boolean
  takedown?: string | null
  code?: ProtocolErrorCode
  /** ProtocolError.subject. */
  subject?: string
}

export function serializeError(error: unknown): SerializedError {
  if (isSerializedError(error)) return error
  if (error instanceof ApiError) {
    const out: SerializedError = {
      fileshareError: true,
      kind: 'api',
      name: error.name,
      message: error.message,
      status: error.status,
      retryAfterSec: error.retryAfterSec,
      removed: error.removed,
      takedown: error.takedown,
    }
    if (error.details !== undefined) out.details = error.details
    return out
  }
  if (error instanceof ProtocolError) {
    return {
      fileshareError: true,
      kind: 'protocol',
      name: error.name,
      message: error.message,
      code: error.code,
      ...(error.subject === undefined ? {} : { subject: error.subject }),
    }
  }
  const named = error as { name?: unknown; message?: unknown } | null
  const name = typeof named?.name === 'string' ? named.name : 'Error'
  const message =
    typeof named?.message === 'string' ? named.message : String(error ?? 'Unknown error')
  return {
    fileshareError: true,
    kind: isAbortError(error) ? 'abort' : 'other',
    name,
    message,
  }
}

export function isSerializedError(value: unknown): value is SerializedError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { fileshareError?: unknown }).fileshareError === true
  )
}

export function reviveError(error: SerializedError): Error {
  switch (error.kind) {
    case 'api': {
      const options: {
        retryAfterSec?: number | null
        details?: unknown
        removed?: boolean
        takedown?: string | null
      } = {
        retryAfterSec: error.retryAfterSec ?? null,
        removed: error.removed ?? false,
        takedown: error.takedown ?? null,
      }
      if (error.details !== undefined) options.details = error.details
      return new ApiError(error.status ?? 500, error.message, options)
    }
    case 'protocol':
      return new ProtocolError(error.code ?? 'BAD_INPUT', error.message, { subject: error.subject })
    case 'abort':
      return new DOMException(error.message, 'AbortError')
    default: {
      const revived = new Error(error.message)
      revived.name = error.name
      return revived
    }
  }
}
