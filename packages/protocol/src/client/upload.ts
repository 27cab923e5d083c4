/**
 * The two upload transports with identical ciphertext: a WebSocket (first choice) and chunked
 * HTTP (fallback), for normal uploads and uploads into a request. The fallback rules are the
 * spec's (WebSocket /api/upload/ws, point 6); docs/api.md "Clients" lists every choice made here.
 */
import { ProtocolError } from '../errors.js'
import { RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'
import type { ConfigResponse } from '../wire/config.js'
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
import type { UploadWsInitHeaders } from '../wire/ws-frames.js'
import { ApiError, isApiError } from './api-error.js'
import { isAbortError } from '../abort.js'
import { networkError, type ApiClient } from './api.js'
import { deferred } from './deferred.js'
import { badServerId, requireServerId } from './server-id.js'
import type { WebSocketFactory, WebSocketLike } from './web-socket.js'

export type UploadTransport = 'websocket' | 'http'

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
      /** The `init` settings; `contentLength` is the ciphertext size. */
      headers: UploadWsInitHeaders
    }
  | {
      kind: 'request'
      requestId: string
      /** `X-Upload-Token`. */
      uploadToken: string
      /** 32-byte salt, canonical base64url. */
      salt: string
      fileCount: number
      /** The finalize body, once the server has named the upload (the wrap binds its id). */
      finalizeBody: (uploadId: string) => Promise<RequestUploadFinalizeBody>
    }

export interface UploadCiphertextOptions extends UploadCallbacks {
  target: UploadTarget
  /** Exact ciphertext length (`encryptedSize` of the plaintext). */
  size: number
  /** The ciphertext; opened once, only after the transport has been chosen. */
  ciphertext: () => ReadableStream<Uint8Array>
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
  if (api.webSocket && config.webSocketUploadEnabled) {
    const id = await sendOverWebSocket(api, api.webSocket, config, options)
    if (id !== FALL_BACK) return { id, transport: 'websocket' }
    options.signal?.throwIfAborted()
  }
  return { id: await sendOverHttp(api, config, options), transport: 'http' }
}

const FALL_BACK = Symbol('fall back to chunked HTTP')

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function report(options: UploadCiphertextOptions, sentBytes: number, transport: UploadTransport) {
  options.onProgress?.({ sentBytes, totalBytes: options.size, transport })
}

function sizeMismatch(): ProtocolError {
  return new ProtocolError('BAD_INPUT', 'The payload is not the size that was declared')
}

function wsInitFrame(target: UploadTarget, size: number): unknown {
  if (target.kind === 'file') return { type: 'init', headers: target.headers }
  return {
    type: 'init',
    request: {
      uploadToken: target.uploadToken,
      salt: target.salt,
      contentLength: size,
      fileCount: target.fileCount,
    },
  }
}

function wsPath(target: UploadTarget): string {
  return target.kind === 'file' ? PATHS.uploadWs() : PATHS.requestUploadWs(target.requestId)
}

/**
 * The socket transport. Resolves with the stored upload's id, or FALL_BACK when the socket
 * failed before `ready` in a way chunked HTTP may not (spec: an error or a non-1000 close
 * before `ready`, no `ready` within the handshake timeout, an `error` frame answering `init`).
 * An `error` frame answering `init` with a 4xx status is the answer HTTP would give too, so it
 * is thrown as ApiError instead. After `ready` every failure is fatal.
 */
async function sendOverWebSocket(
  api: ApiClient,
  factory: WebSocketFactory,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
): Promise<string | typeof FALL_BACK> {
  const { target, signal } = options
  let ws: WebSocketLike
  try {
    ws = factory(api.webSocketUrl(wsPath(target)))
    ws.binaryType = 'arraybuffer'
  } catch {
    // The runtime refused to even open it (a blocked scheme, a bad URL): as an error before ready.
    return FALL_BACK
  }

  type Phase = 'handshake' | 'sending' | 'finalizing' | 'done' | 'over'
  // An object, so that reads after an await see what the socket's handlers wrote meanwhile.
  const state: { phase: Phase; failure?: unknown } = { phase: 'handshake' }
  const ready = deferred<string | typeof FALL_BACK>()
  const done = deferred<string>()
  /** Rejects on the first failure, so that a wait on a stalled source ends with it. */
  const stopped = deferred<never>()

  const closeQuietly = () => {
    try {
      if (ws.readyState === 0 || ws.readyState === 1) ws.close(1000)
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
    closeQuietly()
    if (wasHandshake) ready.reject(error)
    done.reject(error)
    stopped.reject(error)
  }
  const fallBack = () => {
    if (state.phase !== 'handshake') return
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
      ws.send(JSON.stringify(wsInitFrame(target, options.size)))
    } catch {
      fallBack()
    }
  }
  ws.onmessage = (event) => {
    if (state.phase === 'over' || state.phase === 'done' || typeof event.data !== 'string') return
    let frame: { type?: unknown; id?: unknown; message?: unknown; status?: unknown }
    try {
      frame = JSON.parse(event.data) as typeof frame
    } catch {
      frame = {}
    }
    if (frame.type === 'ready' && state.phase === 'handshake') {
      // A `ready` without a proper id is a broken server, not a refusal: no fallback.
      if (!isUuid(frame.id)) return fail(badServerId('upload'))
      clearTimeout(timer)
      state.phase = 'sending'
      ready.resolve(frame.id)
    } else if (frame.type === 'done' && state.phase === 'finalizing') {
      state.phase = 'done'
      done.resolve(typeof frame.id === 'string' ? frame.id : '')
    } else if (frame.type === 'error') {
      // An error frame answering init falls back (spec: WebSocket /api/upload/ws). A refusal of
      // the settings comes back from the HTTP init as well, with its details and Retry-After,
      // which a frame does not carry.
      if (state.phase === 'handshake') {
        fallBack()
      } else {
        const status = typeof frame.status === 'number' ? frame.status : undefined
        const message = typeof frame.message === 'string' ? frame.message : ''
        fail(new ApiError(status ?? 500, message || 'Upload refused'))
      }
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
    const id = await ready.promise
    if (id === FALL_BACK) return FALL_BACK
    await streamFrames(ws, config, options, stopped.promise, () => {
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
    report(options, options.size, 'websocket')
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
  check: () => void,
): Promise<void> {
  const limit = config.uploadSpeedLimit > 0 ? config.uploadSpeedLimit : 0
  const started = Date.now()
  const reader = options.ciphertext().getReader()
  const read = readUntil(reader, stopped)
  let sent = 0
  // What has left the send buffer; the buffer counts frame headers too, so it is kept monotonic.
  let reported = 0
  report(options, 0, 'websocket')
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
          const wait = started + (sent / limit) * 1000 - Date.now()
          if (wait > 0) await sleep(wait)
          check()
        }
        const left = sent - ws.bufferedAmount
        if (left > reported) {
          reported = left
          report(options, reported, 'websocket')
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

function httpInitHeaders(target: UploadTarget, size: number): Record<string, string> {
  if (target.kind === 'request') {
    return {
      [HEADERS.uploadToken]: target.uploadToken,
      [HEADERS.salt]: target.salt,
      [HEADERS.declaredContentLength]: String(size),
      [HEADERS.fileCount]: String(target.fileCount),
    }
  }
  const h = target.headers
  const headers: Record<string, string> = {
    [HEADERS.authToken]: h.authToken,
    [HEADERS.ownerToken]: h.ownerToken,
    [HEADERS.salt]: h.salt,
    [HEADERS.maxDownloads]: h.maxDownloads,
    [HEADERS.expireSec]: h.expireSec,
    [HEADERS.fileCount]: h.fileCount,
    [HEADERS.hasPassword]: h.hasPassword,
    [HEADERS.declaredContentLength]: String(size),
  }
  if (h.hasPassword === 'true') {
    headers[HEADERS.passwordSalt] = h.passwordSalt
    headers[HEADERS.passwordAlgo] = h.passwordAlgo
  }
  return headers
}

function positiveInteger(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : fallback
}

/**
 * The chunked transport: init, chunks of the config's size with the config's number in flight,
 * finalize. The server answers a chunk that arrives before an earlier one as soon as it holds it,
 * so a chunk starts only within the config's number of the lowest unanswered one: the server's
 * buffer of early chunks is never exceeded. A chunk answered 429 waits and is sent again; one
 * that failed on the network is sent again a few times; any other failure, and an abort, end
 * the session on the server (`DELETE`) so nothing of it stays.
 */
async function sendOverHttp(
  api: ApiClient,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
): Promise<string> {
  const { target, signal, size } = options
  const initPath =
    target.kind === 'file' ? PATHS.uploadInit() : PATHS.requestUploadInit(target.requestId)
  const init: { headers: Record<string, string>; signal?: AbortSignal } = {
    headers: httpInitHeaders(target, size),
  }
  if (signal) init.signal = signal
  const answer = await api.json<{ id?: unknown }>('POST', initPath, init)
  const id = requireServerId(answer.id, 'upload')

  // Chunk requests share one controller so that one failure stops the others at once.
  const chunks = new AbortController()
  const onAbort = () => chunks.abort(signal!.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    await sendChunks(api, config, options, id, chunks.signal)
    const finalize = { signal: chunks.signal }
    if (target.kind === 'file') {
      await api.json('POST', PATHS.uploadFinalize(id), {
        ...finalize,
        headers: { [HEADERS.ownerToken]: target.headers.ownerToken },
      })
    } else {
      const body = await target.finalizeBody(id)
      await api.json('POST', PATHS.requestUploadFinalize(target.requestId, id), {
        ...finalize,
        json: body,
      })
    }
    report(options, size, 'http')
    return id
  } catch (error) {
    chunks.abort(error)
    await cancelSession(api, target, id)
    if (signal?.aborted) throw signal.reason
    throw error
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/** Ends an unfinished chunked session so its bytes, quota hold and request slot are released. */
async function cancelSession(api: ApiClient, target: UploadTarget, id: string): Promise<void> {
  try {
    if (target.kind === 'file') {
      await api.raw('DELETE', PATHS.uploadById(id), {
        headers: { [HEADERS.ownerToken]: target.headers.ownerToken },
        accept: [404],
      })
    } else {
      await api.raw('DELETE', PATHS.requestUpload(target.requestId, id), { accept: [404] })
    }
  } catch {
    // Best effort: the server also discards idle sessions on its own.
  }
}

async function sendChunks(
  api: ApiClient,
  config: ConfigResponse,
  options: UploadCiphertextOptions,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const { target, size } = options
  let chunkSize = positiveInteger(config.uploadChunkSize, UPLOAD_CHUNK_BYTES)
  if (target.kind === 'request') chunkSize = Math.min(chunkSize, REQUEST_CHUNK_MAX_BYTES)
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
  let acknowledged = 0
  /** Bytes of each chunk in flight that have left, where the client can tell (progressFetch). */
  const leaving = new Map<number, number>()
  const sentSoFar = () => {
    let sent = acknowledged
    for (const bytes of leaving.values()) sent += bytes
    return sent
  }
  report(options, 0, 'http')

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
      report(options, sentSoFar(), 'http')
    }
    unanswered.add(index)
    const job = sendChunk(api, path(index), body, signal, onSent).then(
      () => {
        unanswered.delete(index)
        leaving.delete(index)
        acknowledged += body.length
        report(options, sentSoFar(), 'http')
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
  const reader = options.ciphertext().getReader()
  const read = readUntil(reader, aborted)
  let index = 0
  /** Ciphertext bytes placed into chunks so far. */
  let position = 0
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
        networkRetries > 0 &&
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
