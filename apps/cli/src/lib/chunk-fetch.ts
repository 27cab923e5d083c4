/**
 * `fetch` for the chunk requests of chunked uploads (`POST /api/upload/:id/chunk`,
 * `POST /api/request/:id/upload/:uid/chunk`) over node:http: the chunk goes to the socket as the
 * caller holds it. undici's `fetch` first copies a byte body (the Fetch standard's "extract a
 * body"), a fresh 10 MB per chunk that the collector frees only late, and the process grows by
 * many of them. The answer is a small JSON body, read whole. Everything else goes elsewhere.
 */
import { ROUTES } from '@fileshare/protocol'

import { plainHeaders, responseHeaders } from './record-fetch.js'

const CHUNK_PATHS = [ROUTES.uploadChunk, ROUTES.requestUploadChunk].map(
  (pattern) => new RegExp(`^${pattern.replace(/:[a-z]+/g, '[^/]+')}$`),
)
/** Longest answer taken: chunk answers are `{ bytesWritten }` or `{ error }`. */
const MAX_ANSWER_BYTES = 64 * 1024
/** Silence after which a chunk request is given up, as undici's timeouts would. */
const IDLE_TIMEOUT_MS = 300_000

/** Whether a request is a chunk upload with a byte body, which this module sends. */
export function isChunkRequest(input: RequestInfo | URL, init?: RequestInit): boolean {
  if (typeof input !== 'string' && !(input instanceof URL)) return false
  if (init?.method !== 'POST' || !(init.body instanceof Uint8Array)) return false
  const url = new URL(input)
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    CHUNK_PATHS.some((path) => path.test(url.pathname))
  )
}

/** POSTs the chunk in `init.body` without copying it; resolves with the whole answer. */
export async function fetchChunk(input: string | URL, init: RequestInit): Promise<Response> {
  const url = new URL(input)
  const body = init.body as Uint8Array
  const signal = init.signal ?? undefined
  signal?.throwIfAborted()
  // Loaded here, not with the module: only chunked uploads need it.
  const { request } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http')
  return new Promise<Response>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...plainHeaders(init.headers), 'content-length': String(body.byteLength) },
      ...(signal ? { signal } : {}),
    })
    req.on('response', (message) => {
      const parts: Buffer[] = []
      let length = 0
      message.on('data', (part: Buffer) => {
        length += part.length
        if (length > MAX_ANSWER_BYTES) message.destroy(new Error('The answer is too long'))
        else parts.push(part)
      })
      message.on('error', reject)
      message.on('end', () => {
        const status = message.statusCode ?? 0
        const bodyless = status === 204 || status === 304
        resolve(
          new Response(bodyless ? null : Buffer.concat(parts, length), {
            status,
            statusText: message.statusMessage ?? '',
            headers: responseHeaders(message),
          }),
        )
      })
    })
    req.setTimeout(IDLE_TIMEOUT_MS, () =>
      req.destroy(new Error('The server sent nothing for five minutes')),
    )
    req.on('error', (error) => reject(signal?.aborted ? signal.reason : error))
    req.end(body)
  })
}
