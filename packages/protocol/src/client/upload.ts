/**
 * The two upload transports with identical ciphertext: a WebSocket (first choice) and chunked
 * HTTP (fallback), for normal uploads and uploads into a request. The fallback rules are the
 * spec's (WebSocket /api/upload/ws, point 6); docs/api.md "Clients" lists every choice made here.
 */
import { ProtocolError } from '../errors.js'
import { RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'
import type { ConfigResponse } from '../wire/config.js'
import { Declaration } from '../wire/declaration.js'
import { RequestDeclaration } from '../wire/request-declaration.js'
import { HEADERS } from '../wire/headers.js'
import {
  DEFAULT_CONCURRENT_CHUNKS,
  REQUEST_CHUNK_MAX_BYTES,
  UPLOAD_CHUNK_BYTES,
  WS_HANDSHAKE_TIMEOUT_MS,
} from '../wire/limits.js'
import type { RequestUploadFinalizeBody } from '../wire/requests.js'
import { ERROR_MESSAGES } from '../wire/errors.js'
import { isUuid } from '../validate.js'
import { PATHS } from '../wire/routes.js'
import { ApiError, isApiError } from './api-error.js'
import { isAbortError } from '../abort.js'
import { networkError, type ApiClient } from './api.js'
import { deferred } from './deferred.js'
import { badServerId, requireServerId } from './server-id.js'
import {
  fetchUploadStatus,
  FINISHED,
  isConnectionLoss,
  resumeDelay,
  savedSession,
  sleep,
  sleepUnlessAborted,
  type StatusTarget,
  type UploadSession,
  type UploadStatus,
} from './upload-status.js'
import type { WebSocketFactory, WebSocketLike } from './web-socket.js'
import type { UploadStatusTransport } from '../wire/uploads.js'

export type { UploadSession } from './upload-status.js'

/** How the ciphertext travels, named as the server's status and metrics name it (docs/api.md). */
export type UploadTransport = UploadStatusTransport

export interface UploadProgress {
  /** Ciphertext bytes handed to the network (WebSocket) or acknowledged (HTTP). */
  sentBytes: number
  /** The ciphertext's total size. */
  totalBytes: number
  transport: UploadTransport
}

/** Progress and cancellation, shared by every upload function. */
export interface UploadCallbacks {
  onProgress?: (progress: UploadProgress) => void
  /** Aborting cancels the upload; nothing stays on the server. */
  signal?: AbortSignal
}

/** Where the ciphertext goes: a new upload, or an upload into a request. */
export type UploadTarget =
  | {
      kind: 'file'
      /** What the upload declares; its `size` is the ciphertext's. */
      declaration: Declaration
    }
  | {
      kind: 'request'
      requestId: string
      /** `X-Upload-Token`. */
      uploadToken: string
      /** 32-byte salt, canonical base64url. */
      salt: string
      fileCount: number
      /** A sender's note going with files: it takes a note's slot where the request keeps some. */
      senderNote?: boolean
      /** The finalize body, once the server has named the upload (the wrap binds its id). */
      finalizeBody: (uploadId: string) => Promise<RequestUploadFinalizeBody>
    }

/** A resume after a lost connection: where it continues and how often it was needed. */
export interface ResumeEvent {
  /** Ciphertext bytes the server had made durable, sent again from there. */
  offset: number
  /** 1 for the first resume of this upload, then 2, … */
  attempt: number
}

/** Resuming an upload whose connection was lost (docs/api.md, "Resuming an upload"). */
export interface ResumeOptions {
  /**
   * How long one loss of the connection is retried, in milliseconds: after that long without
   * bytes getting through the upload fails and stays resumable. 0 turns resuming off.
   */
  retryForMs: number
  /**
   * Called, and awaited, as soon as the server has named the upload and before its first byte:
   * the moment to keep what resuming it later takes.
   */
  onSession?: (session: UploadSession) => void | Promise<void>
  /**
   * Called when a lost connection is to be resumed, before the first wait: once per loss, not
   * again for the failed attempts before the next resume.
   */
  onConnectionLost?: () => void
  /** Called on each resume, before its bytes are sent. */
  onResume?: (event: ResumeEvent) => void
  /** An abort leaves the upload resumable on the server instead of ending it. */
  keepOnAbort?: boolean
}

export interface UploadCiphertextOptions extends UploadCallbacks {
  target: UploadTarget
  /** Exact ciphertext length (`encryptedSize` of the plaintext). */
  size: number
  /**
   * The ciphertext from byte `offset`; opened once per connection, only after the transport has
   * been chosen. It must be the same bytes every time (`ciphertextFrom`).
   */
  ciphertext: (offset: number) => ReadableStream<Uint8Array>
  resume?: ResumeOptions
}

export interface UploadResult {
  /** The stored upload's id. */
  id: string
  transport: UploadTransport
}

/** Largest binary frame: one sealed record, so records go out as they are, never copied. */
export const WS_FRAME_MAX_BYTES = RECORD_SIZE + RECORD_TAG_SIZE
/**
 * The socket's send buffer is kept under this. It bounds the client's memory, not the server's:
 * the server stops reading at 4 MiB of data it has not written yet, and TCP then holds the
 * client back, so its `FILE_UPLOAD_WS_MAX_BUFFER` is never reached. 16 MiB keeps the link busy
 * between two looks at the buffer.
 */
export const WS_MAX_BUFFERED_BYTES = 16 * 1024 * 1024
/** How often a full send buffer is looked at again (there is no event for it draining). */
const WS_DRAIN_POLL_MS = 2
/**
 * The close code of a client that leaves its upload to resume later (an application code; 1000
 * before `done` ends the session, docs/api.md "Resuming an upload").
 */
export const WS_CLOSE_KEEP = 4000
/** Retries of a chunk that failed on the network (not on an answer), and their delays. */
export const CHUNK_RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000]
/**
 * Waits before a chunk answered 429 (a full buffer on the server, its requests in flight, or the
 * rate limit) is sent again, when the answer names no `Retry-After`; one more 429 is final.
 */
export const CHUNK_BUSY_DELAYS_MS: readonly number[] = [
  100, 250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000,
]
/** The longest `Retry-After` a chunk waits out; a longer one is final. */
const CHUNK_BUSY_MAX_WAIT_MS = 60_000

/**
 * Uploads the ciphertext: over a WebSocket when the client has a factory and the server's
 * config allows it, falling back to chunked HTTP while the socket has not reached `ready`.
 */
export async function uploadCiphertext(
  api: ApiClient,
  options: UploadCiphertextOptions,
): Promise<UploadResult> {
  options.signal?.throwIfAborted()
  const config = await api.config()
  options.signal?.throwIfAborted()
  const tracked = trackProgress(options)
  let session: UploadSession | undefined
  const named = async (named: UploadSession) => {
    session = named
    await options.resume?.onSession?.(named)
  }
  try {
    if (api.webSocket && config.webSocketUploadEnabled) {
      const id = await sendOverWebSocket(api, api.webSocket, config, tracked, INIT, named)
      if (id !== FALL_BACK) return { id, transport: 'ws' }
      options.signal?.throwIfAborted()
    }
    return { id: await sendOverHttp(api, config, tracked, INIT, named), transport: 'chunks' }
  } catch (error) {
    if (!session) throw error
    const id = await recover(api, config, tracked, session, error)
    return { id, transport: session.transport }
  }
}

/**
 * Continues an upload the server named earlier (in another run of the program): asks how far it
 * got and sends the rest on its transport, resuming again after lost connections as
 * `uploadCiphertext` does. Without `resume` it tries once.
 */
export async function resumeUpload(
  api: ApiClient,
  saved: UploadSession,
  options: UploadCiphertextOptions,
): Promise<UploadResult> {
  options.signal?.throwIfAborted()
  const session = savedSession(saved)
  const config = await api.config()
  const id = await recover(api, config, trackProgress(options), session, undefined)
  return { id, transport: session.transport }
}

const FALL_BACK = Symbol('fall back to chunked HTTP')

/** How a transport starts: a new upload, or an unfinished one continued from what is durable. */
type Opening =
  | { kind: 'init' }
  | {
      kind: 'resume'
      id: string
      offset: number
      nextIndex: number | null
      chunkSize: number | null
    }
const INIT: Opening = { kind: 'init' }

/** Options with the time of the last new byte recorded, which starts a resume's budget anew. */
interface TrackedOptions extends UploadCiphertextOptions {
  progressAt: () => number
}

function trackProgress(options: UploadCiphertextOptions): TrackedOptions {
  let furthest = -1
  let at = Date.now()
  const onProgress = (progress: UploadProgress) => {
    if (progress.sentBytes > furthest) {
      furthest = progress.sentBytes
      at = Date.now()
    }
    options.onProgress?.(progress)
  }
  return { ...options, onProgress, progressAt: () => at }
}

function statusTarget(target: UploadTarget): StatusTarget {
  return target.kind === 'file'
    ? { kind: 'file', ownerToken: target.declaration.ownerToken }
    : { kind: 'request', requestId: target.requestId }
}

/**
 * After `failure` (undefined: a session continued from another run), resumes the session until
 * it is complete: each lost connection is followed by waits that grow (resumeDelay), a status
 * request and a new connection from the durable point, for at most `retryForMs` without a new
 * byte getting through. A refusal, an abort or the end of that time ends it: the session is
 * cancelled on a refusal, kept otherwise (it may be resumed later).
 */
async function recover(
  api: ApiClient,
  config: ConfigResponse,
  options: TrackedOptions,
  session: UploadSession,
  failure: unknown,
): Promise<string> {
  const { resume, signal } = options
  const retryForMs = resume?.retryForMs ?? 0
  let outageStart = Date.now()
  let attempt = 0
  let waits = 0
  let lossTold = false
  let error = failure
  for (;;) {
    if (error !== undefined) {
      // Bytes got through since this outage began: a new one starts now.
      if (options.progressAt() > outageStart) {
        outageStart = Date.now()
        waits = 0
      }
      const lost = isConnectionLoss(error, signal)
      if (!lost || retryForMs <= 0 || Date.now() - outageStart > retryForMs) {
        const keep =
          (lost && retryForMs > 0) || (signal?.aborted === true && resume?.keepOnAbort === true)
        if (!keep && session.transport === 'chunks') {
          await cancelSession(api, options.target, session.id)
        }
        if (signal?.aborted) throw signal.reason
        throw error
      }
      if (!lossTold) resume?.onConnectionLost?.()
      lossTold = true
      await sleepUnlessAborted(resumeDelay(waits++), signal)
      // An abort during the wait ends the upload as any abort does (kept or cancelled, above).
      if (signal?.aborted) {
        error = signal.reason
        continue
      }
    }
    let status: UploadStatus | typeof FINISHED
    try {
      status = await fetchUploadStatus(
        api,
        statusTarget(options.target),
        session,
        options.size,
        signal,
      )
    } catch (statusError) {
      error = statusError
      continue
    }
    if (status === FINISHED) {
      report(options, options.size, session.transport)
      return session.id
    }
    options.resume?.onResume?.({ offset: status.bytesWritten, attempt: ++attempt })
    lossTold = false
    const opening: Opening = {
      kind: 'resume',
      id: session.id,
      offset: status.bytesWritten,
      nextIndex: status.nextIndex,
      chunkSize: session.chunkSize,
    }
    try {
      if (session.transport === 'ws') {
        const factory = api.webSocket
        if (!factory)
          throw new ProtocolError('BAD_INPUT', 'This upload needs a WebSocket to resume')
        const id = await sendOverWebSocket(api, factory, config, options, opening, () => undefined)
        if (id !== FALL_BACK) return id
      } else {
        return await sendOverHttp(api, config, options, opening, () => undefined)
      }
    } catch (resumeError) {
      error = resumeError
    }
  }
}

function report(options: UploadCiphertextOptions, sentBytes: number, transport: UploadTransport) {
  options.onProgress?.({ sentBytes, totalBytes: options.size, transport })
}

function sizeMismatch(): ProtocolError {
  return new ProtocolError('BAD_INPUT', 'The payload is not the size that was declared')
}

/**
 * Whether the server is asked to keep the session for a resume after a lost connection or its
 * restart (docs/api.md, Resuming uploads): only when this client will resume it. Otherwise the
 * session ends with its connection, as the spec has it, and frees what it holds at once.
 */
function asksToResume(options: UploadCiphertextOptions): boolean {
  const resume = options.resume
  return resume !== undefined && (resume.retryForMs > 0 || resume.keepOnAbort === true)
}

function wsInitFrame(
  target: UploadTarget,
  size: number,
  opening: Opening,
  resumable: boolean,
): unknown {
  if (opening.kind === 'resume') {
    // Ours (docs/api.md): continues the named session from `offset`, at most what is durable.
    return target.kind === 'file'
      ? {
          type: 'resume',
          id: opening.id,
          ownerToken: target.declaration.ownerToken,
          offset: opening.offset,
        }
      : { type: 'resume', uploadId: opening.id, offset: opening.offset }
  }
  const asked = resumable ? { resumable: true } : {}
  if (target.kind === 'file') {
    return { type: 'init', headers: Declaration.toFrame(target.declaration), ...asked }
  }
  return {
    type: 'init',
    request: RequestDeclaration.toFrame(requestDeclaration(target, size)),
    ...asked,
  }
}

function requestDeclaration(
  target: Extract<UploadTarget, { kind: 'request' }>,
  size: number,
): RequestDeclaration {
  const { uploadToken, salt, fileCount } = target
  return { uploadToken, salt, size, fileCount, senderNote: target.senderNote === true }
}

function wsPath(target: UploadTarget): string {
  return target.kind === 'file' ? PATHS.uploadWs() : PATHS.requestUploadWs(target.requestId)
}

/**
 * The socket transport. Resolves with the stored upload's id, or FALL_BACK when the socket
 * failed before `ready` in a way chunked HTTP may not (spec: an error or a non-1000 close
 * before `ready`, no `ready` within the handshake timeout, an `error` frame answering `init`).
 * After `ready` every failure rejects (a lost connection with ProtocolError('NETWORK'), a
 * refusal with ApiError). A resumed session never falls back: its failures before `ready`
 * reject the same way, an `error` frame as the ApiError of its status.
 */
async function sendOverWebSocket(
  api: ApiClient,
  factory: WebSocketFactory,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
  opening: Opening,
  onReady: (session: UploadSession) => void | Promise<void>,
): Promise<string | typeof FALL_BACK> {
  const { target, signal } = options
  const resuming = opening.kind === 'resume'
  let ws: WebSocketLike
  try {
    ws = factory(api.webSocketUrl(wsPath(target)))
    ws.binaryType = 'arraybuffer'
  } catch (error) {
    // The runtime refused to even open it (a blocked scheme, a bad URL): as an error before ready.
    if (resuming) throw networkError(error as Error)
    return FALL_BACK
  }

  type Phase = 'handshake' | 'sending' | 'finalizing' | 'done' | 'over'
  // An object, so that reads after an await see what the socket's handlers wrote meanwhile.
  const state: { phase: Phase; failure?: unknown } = { phase: 'handshake' }
  const ready = deferred<{ id: string; offset: number } | typeof FALL_BACK>()
  const done = deferred<string>()
  /** Rejects on the first failure, so that a wait on a stalled source ends with it. */
  const stopped = deferred<never>()

  /**
   * A close with 1000 before `done` ends the session on the server; any other code leaves it
   * resumable, which an abort does when the caller keeps the session.
   */
  const closeQuietly = (error?: unknown) => {
    const keep =
      options.resume?.keepOnAbort === true && signal?.aborted === true && error === signal.reason
    try {
      if (ws.readyState === 0 || ws.readyState === 1) ws.close(keep ? WS_CLOSE_KEEP : 1000)
    } catch {
      // Closing a socket that is already failing may throw in some runtimes; it is gone anyway.
    }
  }
  /** The first failure wins; every later event of a failed socket is ignored. */
  const fail = (error: unknown) => {
    if (state.phase === 'over' || state.phase === 'done') return
    const wasHandshake = state.phase === 'handshake'
    state.phase = 'over'
    state.failure = error
    clearTimeout(timer)
    closeQuietly(error)
    if (wasHandshake) ready.reject(error)
    done.reject(error)
    stopped.reject(error)
  }
  const fallBack = () => {
    if (state.phase !== 'handshake') return
    if (resuming) return fail(networkError(new Error('the upload connection failed to resume')))
    state.phase = 'over'
    clearTimeout(timer)
    closeQuietly()
    ready.resolve(FALL_BACK)
  }

  const timer = setTimeout(fallBack, WS_HANDSHAKE_TIMEOUT_MS)
  const onAbort = () => fail(signal!.reason)
  signal?.addEventListener('abort', onAbort, { once: true })

  ws.onopen = () => {
    if (state.phase !== 'handshake') return
    try {
      ws.send(JSON.stringify(wsInitFrame(target, options.size, opening, asksToResume(options))))
    } catch {
      fallBack()
    }
  }
  ws.onmessage = (event) => {
    if (state.phase === 'over' || state.phase === 'done' || typeof event.data !== 'string') return
    let frame: {
      type?: unknown
      id?: unknown
      offset?: unknown
      message?: unknown
      status?: unknown
    }
    try {
      frame = JSON.parse(event.data) as typeof frame
    } catch {
      frame = {}
    }
    if (frame.type === 'ready' && state.phase === 'handshake') {
      // A `ready` without a proper id is a broken server, not a refusal: no fallback.
      if (!isUuid(frame.id)) return fail(badServerId('upload'))
      let offset = 0
      if (resuming) {
        // The server continues from a durable point at most the offset asked for.
        if (
          frame.id !== opening.id ||
          !Number.isSafeInteger(frame.offset) ||
          (frame.offset as number) < 0 ||
          (frame.offset as number) > opening.offset
        ) {
          return fail(new ProtocolError('BAD_INPUT', 'The server resumed another upload or offset'))
        }
        offset = frame.offset as number
      }
      clearTimeout(timer)
      state.phase = 'sending'
      ready.resolve({ id: frame.id, offset })
    } else if (frame.type === 'done' && state.phase === 'finalizing') {
      state.phase = 'done'
      done.resolve(typeof frame.id === 'string' ? frame.id : '')
    } else if (frame.type === 'error') {
      // An error frame answering init falls back (spec: WebSocket /api/upload/ws). A refusal of
      // the settings comes back from the HTTP init as well, with its details and Retry-After,
      // which a frame does not carry.
      const status = typeof frame.status === 'number' ? frame.status : undefined
      const message = typeof frame.message === 'string' ? frame.message : ''
      if (state.phase === 'handshake' && !resuming) fallBack()
      else fail(new ApiError(status ?? 500, message || 'Upload refused'))
    } else {
      fail(new ProtocolError('NETWORK', 'The server sent an unexpected upload frame'))
    }
  }
  ws.onerror = () => {
    if (state.phase === 'handshake') fallBack()
    else fail(networkError(new Error('the upload connection failed')))
  }
  ws.onclose = (event) => {
    if (state.phase === 'handshake') {
      if (event.code !== 1000) fallBack()
      else fail(new ProtocolError('NETWORK', 'The server closed the upload before it began'))
    } else {
      fail(networkError(new Error(`the upload connection closed (${event.code})`)))
    }
  }

  try {
    const started = await ready.promise
    if (started === FALL_BACK) return FALL_BACK
    const { id, offset } = started
    if (!resuming) await onReady({ id, transport: 'ws', chunkSize: null })
    if (state.phase !== 'sending') throw state.failure
    await streamFrames(ws, config, options, stopped.promise, offset, () => {
      if (state.phase !== 'sending') throw state.failure
    })
    if (state.phase !== 'sending') throw state.failure
    const finalize =
      target.kind === 'file'
        ? { type: 'finalize' }
        : { type: 'finalize', ...(await target.finalizeBody(id)) }
    if (state.phase !== 'sending') throw state.failure
    state.phase = 'finalizing'
    ws.send(JSON.stringify(finalize))
    await done.promise
    report(options, options.size, 'ws')
    return id
  } catch (error) {
    fail(error)
    throw error
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * Sends the ciphertext as binary frames of at most one record, without waiting for each: only
 * the send buffer (`bufferedAmount`) is bounded, and the speed limit is kept by pacing.
 */
async function streamFrames(
  ws: WebSocketLike,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
  stopped: Promise<never>,
  from: number,
  check: () => void,
): Promise<void> {
  const limit = config.uploadSpeedLimit > 0 ? config.uploadSpeedLimit : 0
  const started = Date.now()
  const reader = options.ciphertext(from).getReader()
  const read = readUntil(reader, stopped)
  let sent = from
  // What has left the send buffer; the buffer counts frame headers too, so it is kept monotonic.
  let reported = from
  report(options, from, 'ws')
  try {
    for (;;) {
      const { value, done } = await read()
      check()
      if (done) break
      for (let offset = 0; offset < value.length; offset += WS_FRAME_MAX_BYTES) {
        const frame = value.subarray(offset, offset + WS_FRAME_MAX_BYTES)
        if (sent + frame.length > options.size) throw sizeMismatch()
        ws.send(frame as Uint8Array<ArrayBuffer>)
        sent += frame.length
        while (ws.bufferedAmount > WS_MAX_BUFFERED_BYTES - WS_FRAME_MAX_BYTES) {
          await sleep(WS_DRAIN_POLL_MS)
          check()
        }
        if (limit > 0) {
          const wait = started + ((sent - from) / limit) * 1000 - Date.now()
          if (wait > 0) await sleep(wait)
          check()
        }
        const left = sent - ws.bufferedAmount
        if (left > reported) {
          reported = left
          report(options, reported, 'ws')
        }
      }
    }
    if (sent !== options.size) throw sizeMismatch()
  } catch (error) {
    await reader.cancel(error).catch(() => undefined)
    throw error
  }
}

/**
 * Reads from `reader` until `stop` rejects; a read pending at that moment fails with its reason.
 * Racing every read against the one long-lived `stop` would leave a reaction on it per read, and
 * each reaction would keep its piece of ciphertext alive until the upload ends.
 */
function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  stop: Promise<never>,
): () => Promise<ReadableStreamReadResult<Uint8Array>> {
  let stopped: { reason: unknown } | undefined
  let rejectPending: ((reason: unknown) => void) | undefined
  stop.catch((reason: unknown) => {
    stopped = { reason }
    rejectPending?.(reason)
  })
  return () => {
    if (stopped) return Promise.reject(stopped.reason)
    return new Promise((resolve, reject) => {
      rejectPending = reject
      reader.read().then(resolve, reject)
    })
  }
}

function httpInitHeaders(
  target: UploadTarget,
  size: number,
  resumable: boolean,
): Record<string, string> {
  const asked: Record<string, string> = resumable ? { [HEADERS.resumable]: 'true' } : {}
  if (target.kind === 'request') {
    return { ...RequestDeclaration.toHeaders(requestDeclaration(target, size)), ...asked }
  }
  return { ...Declaration.toHeaders({ ...target.declaration, size }), ...asked }
}

function positiveInteger(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : fallback
}

/**
 * The chunked transport: init (or, resuming, the session's missing chunks from `nextIndex`),
 * chunks of the config's size with the config's number in flight, finalize. The server answers
 * a chunk that arrives before an earlier one as soon as it holds it, so a chunk starts only
 * within the config's number of the lowest unanswered one: the server's buffer of early chunks
 * is never exceeded. A chunk answered 429 waits and is sent again; one that failed on the
 * network is sent again a few times. Any failure rejects; the caller decides whether the session
 * is resumed or cancelled.
 */
async function sendOverHttp(
  api: ApiClient,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
  opening: Opening,
  onInit: (session: UploadSession) => void | Promise<void>,
): Promise<string> {
  const { target, signal, size } = options
  let id: string
  let chunkSize: number
  let from = 0
  if (opening.kind === 'resume') {
    id = opening.id
    chunkSize = opening.chunkSize ?? 0
    from = opening.nextIndex ?? -1
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0 || from < 0) {
      throw new ProtocolError('BAD_INPUT', 'A chunked upload resumes with its chunk size and index')
    }
  } else {
    const initPath =
      target.kind === 'file' ? PATHS.uploadInit() : PATHS.requestUploadInit(target.requestId)
    const init: { headers: Record<string, string>; signal?: AbortSignal } = {
      headers: httpInitHeaders(target, size, asksToResume(options)),
    }
    if (signal) init.signal = signal
    const answer = await api.json<{ id?: unknown }>('POST', initPath, init)
    id = requireServerId(answer.id, 'upload')
    chunkSize = positiveInteger(config.uploadChunkSize, UPLOAD_CHUNK_BYTES)
    if (target.kind === 'request') chunkSize = Math.min(chunkSize, REQUEST_CHUNK_MAX_BYTES)
    await onInit({ id, transport: 'chunks', chunkSize })
  }

  // Chunk requests share one controller so that one failure stops the others at once.
  const chunks = new AbortController()
  const onAbort = () => chunks.abort(signal!.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const resumed = opening.kind === 'resume'
    await sendChunks(api, config, options, id, chunks.signal, { chunkSize, from, resumed })
    const finalize = { signal: chunks.signal }
    if (target.kind === 'file') {
      await api.json('POST', PATHS.uploadFinalize(id), {
        ...finalize,
        headers: { [HEADERS.ownerToken]: target.declaration.ownerToken },
      })
    } else {
      const body = await target.finalizeBody(id)
      await api.json('POST', PATHS.requestUploadFinalize(target.requestId, id), {
        ...finalize,
        json: body,
      })
    }
    report(options, size, 'chunks')
    return id
  } catch (error) {
    chunks.abort(error)
    if (signal?.aborted) throw signal.reason
    throw error
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/** Ends an unfinished chunked session so its bytes, quota hold and request slot are released. */
function cancelSession(api: ApiClient, target: UploadTarget, id: string): Promise<void> {
  return cancelUnfinished(api, statusTarget(target), id)
}

/**
 * Ends an unfinished session (of either transport) so that its bytes, quota hold and request
 * slot are released; best effort, as the server also discards idle sessions on its own.
 */
export async function cancelUnfinished(
  api: ApiClient,
  target: StatusTarget,
  id: string,
): Promise<void> {
  try {
    if (target.kind === 'file') {
      await api.raw('DELETE', PATHS.uploadById(id), {
        headers: { [HEADERS.ownerToken]: target.ownerToken },
        accept: [404],
      })
    } else {
      await api.raw('DELETE', PATHS.requestUpload(target.requestId, id), { accept: [404] })
    }
  } catch {
    // Best effort: the server also discards idle sessions on its own.
  }
}

/** Sends the chunks from index `from` (0, or where a resumed session continues). */
async function sendChunks(
  api: ApiClient,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
  id: string,
  signal: AbortSignal,
  at: { chunkSize: number; from: number; resumed: boolean },
): Promise<void> {
  const { chunkSize, from, resumed } = at
  const { target, size } = options
  const concurrency = positiveInteger(config.uploadConcurrentChunks, DEFAULT_CONCURRENT_CHUNKS)
  const path = (index: number) =>
    target.kind === 'file'
      ? PATHS.uploadChunk(id, index)
      : PATHS.requestUploadChunk(target.requestId, id, index)

  const inFlight = new Set<Promise<void>>()
  /** Indexes sent and not yet answered; a new chunk starts within `concurrency` of the lowest. */
  const unanswered = new Set<number>()
  const lowestUnanswered = (next: number) => Math.min(next, ...unanswered)
  const failed: { error?: unknown; any: boolean } = { any: false }
  const start0 = Math.min(from * chunkSize, size)
  let acknowledged = start0
  /** Bytes of each chunk in flight that have left, where the client can tell (progressFetch). */
  const leaving = new Map<number, number>()
  const sentSoFar = () => {
    let sent = acknowledged
    for (const bytes of leaving.values()) sent += bytes
    return sent
  }
  report(options, start0, 'chunks')

  /**
   * Chunk buffers whose requests are over, used again for later chunks: a fresh buffer per chunk
   * is garbage the collector learns of only late, and memory grows meanwhile. `fetch` takes a
   * copy of the body, so a buffer is free again once its request has ended.
   */
  const spare: Uint8Array[] = []
  const pooled = new WeakSet<Uint8Array>()
  const chunkBuffer = (length: number) => {
    const reused = spare.pop()
    if (reused?.length === length) return reused
    const buffer = new Uint8Array(length)
    pooled.add(buffer)
    return buffer
  }

  const start = (index: number, body: Uint8Array) => {
    const onSent = (bytes: number) => {
      // Never past the chunk, and never backwards while it is sent again after a failure.
      const sent = Math.min(bytes, body.length)
      if (sent <= (leaving.get(index) ?? 0)) return
      leaving.set(index, sent)
      report(options, sentSoFar(), 'chunks')
    }
    unanswered.add(index)
    // A resumed session may hold chunks past `nextIndex` already: they count as received.
    const job = sendChunk(api, path(index), body, signal, onSent, resumed).then(
      () => {
        unanswered.delete(index)
        leaving.delete(index)
        acknowledged += body.length
        report(options, sentSoFar(), 'chunks')
      },
      (error: unknown) => {
        unanswered.delete(index)
        if (!failed.any) Object.assign(failed, { error, any: true })
      },
    )
    inFlight.add(job)
    void job.finally(() => {
      inFlight.delete(job)
      if (pooled.has(body)) spare.push(body)
      else api.releaseCiphertext?.(body)
    })
  }

  // An abort ends a wait on a stalled source too.
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
  aborted.catch(() => undefined)
  const reader = options.ciphertext(start0).getReader()
  const read = readUntil(reader, aborted)
  let index = from
  /** Ciphertext bytes placed into chunks so far. */
  let position = start0
  let chunk: Uint8Array | undefined
  let filled = 0
  try {
    for (;;) {
      const { value, done } = await read()
      if (failed.any) throw failed.error
      if (done) break
      if (position + value.length > size) throw sizeMismatch()
      let at = 0
      /** Whether the piece went out as a chunk by itself (released once its request ends). */
      let sentWhole = false
      while (at < value.length) {
        if (!chunk) {
          const length = Math.min(chunkSize, size - position)
          // A piece that is a whole chunk by itself goes out without a copy.
          if (at === 0 && value.length === length) {
            sentWhole = true
            chunk = value
            filled = length
            at = length
            position += length
          } else {
            chunk = chunkBuffer(length)
          }
        }
        const part = Math.min(chunk.length - filled, value.length - at)
        if (part > 0) {
          chunk.set(value.subarray(at, at + part), filled)
          filled += part
          at += part
          position += part
        }
        if (filled === chunk.length) {
          while (inFlight.size >= concurrency || index >= lowestUnanswered(index) + concurrency) {
            if (failed.any) throw failed.error
            await Promise.race(inFlight)
          }
          if (failed.any) throw failed.error
          start(index++, chunk)
          chunk = undefined
          filled = 0
        }
      }
      // Every byte of the piece is in a chunk now.
      if (!sentWhole) api.releaseCiphertext?.(value)
    }
    if (position !== size) throw sizeMismatch()
    await Promise.all(inFlight)
    if (failed.any) throw failed.error
  } catch (error) {
    await reader.cancel(error).catch(() => undefined)
    await Promise.allSettled(inFlight)
    throw error
  }
}

/**
 * One chunk, sent again after a network failure or a 429 (after its `Retry-After`, or a growing
 * delay); any other answer is final.
 */
async function sendChunk(
  api: ApiClient,
  path: string,
  body: Uint8Array,
  signal: AbortSignal,
  onSent: (bytes: number) => void,
  resumed: boolean,
): Promise<void> {
  let networkRetries = 0
  let busyRetries = 0
  for (;;) {
    try {
      await api.json('POST', path, { body, signal, onSent })
      return
    } catch (error) {
      if (signal.aborted || isAbortError(error)) throw error
      // The earlier attempt reached the server and only its answer was lost.
      if (
        (networkRetries > 0 || resumed) &&
        isApiError(error, 400) &&
        error.message === ERROR_MESSAGES.duplicateChunk
      ) {
        return
      }
      let delay: number | undefined
      if (isApiError(error, 429)) {
        const retryAfterMs = error.retryAfterSec === null ? null : error.retryAfterSec * 1000
        delay = CHUNK_BUSY_DELAYS_MS[busyRetries++]
        if (delay !== undefined && retryAfterMs !== null) {
          delay = retryAfterMs <= CHUNK_BUSY_MAX_WAIT_MS ? Math.max(delay, retryAfterMs) : undefined
        }
      } else if (error instanceof ProtocolError && error.code === 'NETWORK') {
        delay = CHUNK_RETRY_DELAYS_MS[networkRetries++]
      }
      if (delay === undefined) throw error
      await sleep(delay)
      signal.throwIfAborted()
    }
  }
}
