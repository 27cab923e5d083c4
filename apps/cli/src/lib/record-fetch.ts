/**
 * `fetch` for the counted downloads (`GET /api/download/:id`, `GET /api/inbox/:id/file/:uid`)
 * whose body arrives cut into whole ciphertext records, each in a reused record buffer
 * (record-buffers.ts): over plain HTTP a socket reads straight into them, over HTTPS node:https
 * delivers into them. The decrypting stream then takes every record as it is and the cipher
 * threads open it in place: no assembly copy in the stream, no fresh MiB per record, and none
 * of the web-stream machinery of undici's body between the socket and the cipher (undici's own
 * `request` and `stream` cost far more CPU per download: docs/cli.md). Header values pass through
 * `Headers`, which refuses line breaks. Everything else goes to the global `fetch`.
 */
import type { IncomingMessage } from 'node:http'

import { ROUTES } from '@fileshare/protocol'

import { acquireBuffer, handOn, RECORD_BUFFER_BYTES } from './record-buffers.js'

/** Paths whose answer is ciphertext (or a small JSON answer, read like any other body). */
const DOWNLOAD_PATHS = [ROUTES.download, ROUTES.inboxFile].map(
  (pattern) => new RegExp(`^${pattern.replace(/:[a-z]+/g, '[^/]+')}$`),
)
/** Whole records queued for the reader before the socket is paused. */
const QUEUED_RECORDS = 2
/** What a plain-HTTP download socket reads the status line and headers into. */
const HEAD_READ_BYTES = 64 * 1024
/** Silence after which a download connection is given up. */
const IDLE_TIMEOUT_MS = 300_000
/** Longest status line and headers taken. */
const MAX_HEAD_BYTES = 64 * 1024

/** Whether a request is a counted download this module serves. */
export function isDownloadRequest(input: RequestInfo | URL, init?: RequestInit): boolean {
  if (typeof input !== 'string' && !(input instanceof URL)) return false
  if ((init?.method ?? 'GET') !== 'GET' || init?.body != null) return false
  const url = new URL(input)
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    DOWNLOAD_PATHS.some((path) => path.test(url.pathname))
  )
}

export function plainHeaders(headers: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  new Headers(headers).forEach((value, name) => {
    out[name] = value
  })
  return out
}

export function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers()
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) {
    headers.append(message.rawHeaders[i]!, message.rawHeaders[i + 1]!)
  }
  return headers
}

/**
 * Copies body bytes into record buffers and queues each one once full; `end` queues the rest.
 * Returns whether the reader wants more (false: stop reading the socket until `pull`).
 */
class RecordAssembler {
  private buffer: ArrayBuffer | undefined
  private filled = 0

  constructor(private readonly controller: ReadableStreamDefaultController<Uint8Array>) {}

  push(bytes: Uint8Array): boolean {
    for (let at = 0; at < bytes.length;) {
      const space = this.space()
      const part = Math.min(space.length, bytes.length - at)
      space.set(bytes.subarray(at, at + part))
      at += part
      this.commit(part)
    }
    return (this.controller.desiredSize ?? 0) > 0
  }

  /** The free part of the record being filled, for a socket to read into directly. */
  space(): Uint8Array {
    this.buffer ??= acquireBuffer()
    return new Uint8Array(this.buffer, this.filled, RECORD_BUFFER_BYTES - this.filled)
  }

  /** Counts `length` bytes read into `space()`; as `push` otherwise. */
  commit(length: number): boolean {
    this.filled += length
    if (this.filled === RECORD_BUFFER_BYTES) {
      this.controller.enqueue(handOn(this.buffer!, this.filled))
      this.buffer = undefined
      this.filled = 0
    }
    return (this.controller.desiredSize ?? 0) > 0
  }

  end(): void {
    if (this.buffer !== undefined && this.filled > 0) {
      this.controller.enqueue(handOn(this.buffer, this.filled))
    }
    this.buffer = undefined
    this.controller.close()
  }
}

/** The body as whole records of RECORD_BUFFER_BYTES (the last one shorter), read as pulled. */
function recordStream(message: IncomingMessage): ReadableStream<Uint8Array> {
  let ended = false
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const records = new RecordAssembler(controller)
        message.on('data', (chunk: Buffer) => {
          if (!records.push(chunk)) message.pause()
        })
        message.on('end', () => {
          ended = true
          records.end()
        })
        message.on('error', (error) => {
          if (!ended) controller.error(error)
          ended = true
        })
        message.on('close', () => {
          // A connection that broke off before the end: never a quietly shorter body.
          if (!ended) controller.error(new Error('The connection closed before the body ended'))
          ended = true
        })
      },
      pull() {
        message.resume()
      },
      cancel() {
        ended = true
        message.destroy()
      },
    },
    { highWaterMark: QUEUED_RECORDS },
  )
}

/** A GET over node:https answered as a `Response` whose body is `recordStream`. */
async function fetchOverNodeHttp(url: URL, init: RequestInit): Promise<Response> {
  // Loaded here, not with the module: most commands never download.
  const { request } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http')
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined
    const req = request(url, {
      method: 'GET',
      headers: plainHeaders(init.headers),
      ...(signal ? { signal } : {}),
    })
    req.on('response', (message) => {
      const status = message.statusCode ?? 0
      const bodyless = status === 204 || status === 304
      if (bodyless) message.resume()
      try {
        resolve(
          new Response(bodyless ? null : recordStream(message), {
            status,
            statusText: message.statusMessage ?? '',
            headers: responseHeaders(message),
          }),
        )
      } catch (error) {
        message.destroy()
        reject(error)
      }
    })
    // As on plain HTTP (and undici's timeouts): a server silent this long is taken as gone.
    req.setTimeout(IDLE_TIMEOUT_MS, () =>
      req.destroy(new Error('The server sent nothing for five minutes')),
    )
    req.on('error', (error) => reject(signal?.aborted ? signal.reason : error))
    req.end()
  })
}

/**
 * GET over plain HTTP on a socket that reads straight into the record being filled (`onread`),
 * so that a GiB of download allocates nothing per read and copies nothing in this process; the
 * status line and headers are read into a small buffer of their own. The request is HTTP/1.0,
 * which rules out chunked answers: the body is Content-Length bytes, or everything up to the
 * end of the connection when there is none.
 */
async function fetchOverSocket(url: URL, init: RequestInit): Promise<Response> {
  const signal = init.signal ?? undefined
  signal?.throwIfAborted()
  const { connect } = await import('node:net')
  signal?.throwIfAborted()
  const headerLines = Object.entries(plainHeaders(init.headers))
    .filter(([name]) => name !== 'host' && name !== 'connection')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  const requestText =
    `GET ${url.pathname}${url.search} HTTP/1.0\r\nHost: ${url.host}\r\n` +
    `${headerLines}Connection: close\r\n\r\n`

  return new Promise<Response>((resolve, reject) => {
    let head: Buffer = Buffer.alloc(0)
    let records: RecordAssembler | undefined
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    /** Body bytes still expected, when the answer said how many. */
    let remaining: number | undefined
    let state: 'head' | 'body' | 'done' = 'head'

    const fail = (error: unknown) => {
      if (state === 'done') return
      const wasHead = state === 'head'
      state = 'done'
      socket.destroy()
      signal?.removeEventListener('abort', onAbort)
      if (wasHead) reject(error)
      else controller?.error(error)
    }
    const finish = () => {
      if (state !== 'body') return
      state = 'done'
      signal?.removeEventListener('abort', onAbort)
      records?.end()
      socket.destroy()
    }
    const onAbort = () => fail(signal!.reason)

    /** How many of `length` bytes read belong to the body, counted off what is still due. */
    const bodyPart = (length: number): number => {
      if (remaining === undefined) return length
      const take = Math.min(length, remaining)
      remaining -= take
      return take
    }
    /** Ends the body once every byte due has come; passes on whether to read on. */
    const readOn = (more: boolean): boolean => {
      if (remaining === 0) finish()
      return more
    }
    const body = (bytes: Uint8Array): boolean => {
      const take = bytes.subarray(0, bodyPart(bytes.length))
      return readOn(take.length > 0 ? records!.push(take) : true)
    }

    const answer = (text: string, rest: Uint8Array): boolean => {
      const [statusLine = '', ...lines] = text.split('\r\n')
      const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine)
      if (!match) {
        fail(new Error('The server answered with something that is not HTTP'))
        return false
      }
      const status = Number(match[1])
      const headers = new Headers()
      try {
        for (const line of lines) {
          const colon = line.indexOf(':')
          if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
        }
      } catch {
        // `Headers` refuses names and values no HTTP answer may hold.
        fail(new Error('The server answered with a malformed header'))
        return false
      }
      const length = headers.get('content-length')
      if (length !== null) {
        if (!/^\d+$/.test(length)) {
          fail(new Error('The server answered with a bad Content-Length'))
          return false
        }
        remaining = Number(length)
      }
      const bodyless = status === 204 || status === 304
      if (bodyless) remaining = 0
      const stream = bodyless
        ? null
        : new ReadableStream<Uint8Array>(
            {
              start(c) {
                controller = c
                records = new RecordAssembler(c)
              },
              pull() {
                if (state === 'body') socket.resume()
              },
              cancel() {
                state = 'done'
                signal?.removeEventListener('abort', onAbort)
                socket.destroy()
              },
            },
            { highWaterMark: QUEUED_RECORDS },
          )
      let response: Response
      try {
        response = new Response(stream, { status, statusText: match[2] ?? '', headers })
      } catch (error) {
        fail(error)
        return false
      }
      state = 'body'
      resolve(response)
      if (bodyless) {
        finish()
        return false
      }
      return body(rest)
    }

    const headBuffer = new Uint8Array(HEAD_READ_BYTES)
    /** What the socket reads into next: the record being filled once the body has begun. */
    let space: Uint8Array = headBuffer
    const nextBuffer = (): Uint8Array => {
      space = state === 'body' && records !== undefined ? records.space() : headBuffer
      return space
    }

    const onRead = (length: number, buffer: Uint8Array): boolean => {
      if (state === 'body' && buffer === space && buffer !== headBuffer) {
        return readOn(records!.commit(bodyPart(length)))
      }
      const bytes = buffer.subarray(0, length)
      if (state === 'body') return body(bytes)
      if (state !== 'head') return false
      head = Buffer.concat([head, bytes])
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) fail(new Error('The server answered with huge headers'))
        return true
      }
      return answer(head.toString('latin1', 0, end), head.subarray(end + 4))
    }

    const socket = connect({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port || 80),
      onread: { buffer: nextBuffer, callback: onRead },
    })
    socket.setNoDelay(true)
    // As undici's headers and body timeouts: a server silent this long is taken as gone.
    socket.setTimeout(IDLE_TIMEOUT_MS, () =>
      fail(new Error('The server sent nothing for five minutes')),
    )
    socket.on('connect', () => socket.write(requestText))
    socket.on('error', fail)
    socket.on('end', () => {
      if (state === 'head') fail(new Error('The server closed the connection without an answer'))
      else if (remaining !== undefined && remaining > 0) {
        // Security: a body cut short is an error, never a quietly shorter download.
        fail(new Error('The connection closed before the body ended'))
      } else finish()
    })
    socket.on('close', () => fail(new Error('The connection closed before the body ended')))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * A GET answered as a `Response` whose body comes as whole records. Plain HTTP reads through a
 * fixed buffer; HTTPS through node:https. A redirect is answered as it is: redirects.ts decides
 * whether it may be followed with the request's tokens.
 */
export async function fetchRecords(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input)
  return url.protocol === 'http:' ? fetchOverSocket(url, init) : fetchOverNodeHttp(url, init)
}
