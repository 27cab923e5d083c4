/**
 * What a resumed upload asks first: how far the server got (`GET /api/upload/:id/status`, or the
 * request variant; ours, docs/api.md), and whether a connection failure is worth resuming after.
 */
import { ProtocolError } from '../errors.js'
import { HEADERS } from '../wire/headers.js'
import { PATHS } from '../wire/routes.js'
import type {
  ExistsResponse,
  UploadStatusResponse,
  UploadStatusTransport,
} from '../wire/uploads.js'
import { ApiError, isApiError } from './api-error.js'
import type { ApiClient } from './api.js'

/** An unfinished upload as the server names it: what resuming it needs besides its bytes. */
export interface UploadSession {
  id: string
  /** `ws` sessions resume over a new socket, `chunks` ones with the missing chunks. */
  transport: UploadStatusTransport
  /** Bytes per chunk of a `chunks` session: resumed chunks keep their indexes. */
  chunkSize: number | null
}

/** Where the upload goes; the status is asked with the credential of that kind of upload. */
export type StatusTarget =
  { kind: 'file'; ownerToken: string } | { kind: 'request'; requestId: string }

/** The server's answer, checked against the session it describes. */
export interface UploadStatus {
  /** Bytes made durable, contiguous from byte 0: the point to continue from. */
  bytesWritten: number
  /** For chunks, the lowest chunk index not durably stored. */
  nextIndex: number | null
}

/** The upload was finalized before its answer could arrive: nothing is left to send. */
export const FINISHED = Symbol('finished')

function statusPath(target: StatusTarget, id: string): string {
  return target.kind === 'file'
    ? PATHS.uploadStatus(id)
    : PATHS.requestUploadStatus(target.requestId, id)
}

/** The transport names that clients kept in saved state before they took the server's. */
const SAVED_TRANSPORTS: Readonly<Record<string, UploadStatusTransport>> = {
  websocket: 'ws',
  http: 'chunks',
}

/** A session as this client or an earlier one saved it, under today's transport name. */
export function savedSession(session: UploadSession): UploadSession {
  const transport = SAVED_TRANSPORTS[session.transport] ?? session.transport
  return transport === session.transport ? session : { ...session, transport }
}

/**
 * Asks how far `session` got. A 404 after a finalize that may have completed is answered by
 * `GET /api/exists/:id` (normal uploads): FINISHED when the upload is there, else an ApiError 404
 * saying the server no longer has the unfinished upload.
 */
export async function fetchUploadStatus(
  api: ApiClient,
  target: StatusTarget,
  session: UploadSession,
  size: number,
  signal?: AbortSignal,
): Promise<UploadStatus | typeof FINISHED> {
  const init: { headers?: Record<string, string>; signal?: AbortSignal } = {}
  if (target.kind === 'file') init.headers = { [HEADERS.ownerToken]: target.ownerToken }
  if (signal) init.signal = signal
  // Checked field by field below: a status that does not fit this session is refused.
  let answer: Partial<Record<keyof UploadStatusResponse, unknown>>
  try {
    answer = await api.json<typeof answer>('GET', statusPath(target, session.id), init)
  } catch (error) {
    if (!isApiError(error, 404)) throw error
    if (target.kind === 'file') {
      const exists = await api.json<ExistsResponse>('GET', PATHS.exists(session.id), {
        ...(signal ? { signal } : {}),
      })
      if (exists.exists === true) return FINISHED
    }
    throw new ApiError(
      404,
      'The server no longer has this unfinished upload (it expired, was removed, or the server ' +
        'lost it); start a new upload',
      { cause: error },
    )
  }
  const { bytesWritten, nextIndex, declaredSize, transport } = answer
  const expected = savedSession(session).transport
  const chunked = expected === 'chunks'
  if (
    declaredSize !== size ||
    transport !== expected ||
    !Number.isSafeInteger(bytesWritten) ||
    (bytesWritten as number) < 0 ||
    (bytesWritten as number) > size ||
    (chunked
      ? !Number.isSafeInteger(nextIndex) ||
        (nextIndex as number) < 0 ||
        Math.min((nextIndex as number) * session.chunkSize!, size) !== bytesWritten
      : nextIndex !== null)
  ) {
    throw new ProtocolError(
      'BAD_INPUT',
      'The server answered the upload status in a form that does not fit this upload',
    )
  }
  return { bytesWritten: bytesWritten as number, nextIndex: nextIndex as number | null }
}

/** HTTP statuses a resume waits out: a proxy or the server away, a session still held, busy. */
const PASSING_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504])

/**
 * Whether `error` is a lost connection (or a server away for a moment) rather than a refusal:
 * only those are resumed. An abort never is.
 */
export function isConnectionLoss(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return false
  if (error instanceof ProtocolError) return error.code === 'NETWORK'
  return error instanceof ApiError && PASSING_STATUSES.has(error.status)
}

export const RESUME_FIRST_DELAY_MS = 100
export const RESUME_MAX_DELAY_MS = 15_000

/**
 * The wait before resume attempt `n` (0-based): a random time up to a bound that doubles from
 * 0.1 s to 15 s ("full jitter"), so that clients cut off together do not come back together and
 * a single drop costs little however fast the link: the first attempt follows at once.
 */
export function resumeDelay(n: number, random = Math.random): number {
  const bound = Math.min(RESUME_MAX_DELAY_MS, RESUME_FIRST_DELAY_MS * 2 ** Math.min(n, 10))
  return Math.round(random() * bound)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Waits `ms`, or less when `signal` aborts meanwhile; never rejects. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms)
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}
