/**
 * Chunk requests of both upload kinds against the real server (spec: POST /api/upload/:id/chunk,
 * POST /api/request/:id/upload/:uid/chunk): a chunk that arrives early is answered as soon as it
 * is stored, every index is taken once, and each request is admitted on its head (index, the
 * session's window and requests in flight, the server's buffer budget) before its body is read.
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { followDownload } from './backends.js'
import { startTestServer, type TestServer } from './harness.js'
import { RawRequest, type RawAnswer } from './raw-request.js'
import {
  ENV,
  createRequest,
  downloadFile,
  finalizeBody,
  finalize as finalizeRequestUpload,
  initOk,
} from './requests.suite.js'
import { initChunked, json } from './uploads.suite.js'

/** The parts of an answer these cases check, so a test of headers elsewhere changes nothing. */
function statusAndBody(answer: RawAnswer | null) {
  return answer && { status: answer.status, body: answer.body }
}

/** One chunked session, whichever kind of upload it belongs to. */
interface Session {
  path(index: number): string
  finalize(): Promise<number>
  /** The stored bytes, after a successful finalize. */
  stored(): Promise<Buffer>
}

interface Target {
  name: string
  /** Opens a session of `size` bytes, with `overrides` on its init's headers. */
  open(server: TestServer, size: number, overrides?: Record<string, string>): Promise<Session>
}

const FILE: Target = {
  name: 'normal uploads',
  async open(server, size, overrides) {
    const up = await initChunked(server, size, overrides)
    return {
      path: (index) => `/api/upload/${up.id}/chunk?index=${index}`,
      finalize: async () =>
        (
          await fetch(`${server.url}/api/upload/${up.id}/finalize`, {
            method: 'POST',
            headers: { 'X-Owner-Token': up.ownerToken },
          })
        ).status,
      stored: async () => {
        const res = await followDownload(
          server,
          await fetch(`${server.url}/api/download/${up.id}`, {
            headers: { 'X-Auth-Token': up.authToken },
          }),
        )
        return Buffer.from(await res.arrayBuffer())
      },
    }
  },
}

const REQUEST: Target = {
  name: 'uploads into requests',
  async open(server, size, overrides) {
    const req = await createRequest(server)
    const uid = await initOk(server, req, size, overrides)
    return {
      path: (index) => `/api/request/${req.id}/upload/${uid}/chunk?index=${index}`,
      finalize: async () => (await finalizeRequestUpload(server, req, uid, finalizeBody())).status,
      stored: async () => (await downloadFile(server, req, uid)).bytes,
    }
  },
}

/** Sends one chunk and waits at most `timeoutMs` for its answer. */
async function post(server: TestServer, path: string, bytes: Uint8Array, timeoutMs = 3000) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    body: bytes as Uint8Array<ArrayBuffer>,
    signal: AbortSignal.timeout(timeoutMs),
  })
  return { status: res.status, body: await json(res) }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.each([FILE, REQUEST])('chunks of $name', (target) => {
  // On PostgreSQL both kinds keep their sessions in the database and stream every chunk with a
  // Content-Length into a stored part of its own (sessions/chunk-sessions.ts).
  let server: TestServer
  const open: RawRequest[] = []

  beforeAll(async () => {
    server = await startTestServer({
      env: { ...ENV, FILE_UPLOAD_CHUNK_BUFFER: '1000', RATE_LIMIT_MAX: '0' },
    })
  })
  afterAll(async () => {
    for (const request of open.splice(0)) request.destroy()
    await server.close()
  })

  /** The head of a chunk request with its Content-Length, and `first` bytes of the body. */
  async function stalled(path: string, length: number, first?: Uint8Array): Promise<RawRequest> {
    const request = await RawRequest.open(
      server.url,
      path,
      { 'Content-Length': String(length) },
      first,
    )
    open.push(request)
    return request
  }

  it('stores the chunks of a session that ends with this instance for its join to make durable, and a resumable one chunk by chunk', async () => {
    // A session whose client did not ask to resume ends with the instance that holds it, so its
    // chunks need reach the disk only with the join; a resumable one's must as they are recorded.
    const putChunk = vi.spyOn(server.service.blobs, 'putChunk')
    try {
      for (const [overrides, expected] of [
        [{}, false],
        [{ 'X-Resumable': 'true' }, true],
      ] as const) {
        putChunk.mockClear()
        const bytes = randomBytes(10)
        const session = await target.open(server, bytes.length, overrides)
        expect(await post(server, session.path(0), bytes)).toEqual({
          status: 200,
          body: { bytesWritten: bytes.length },
        })
        expect(putChunk.mock.calls.map((call) => call[5])).toEqual([expected])
        expect(await session.finalize()).toBe(200)
        expect((await session.stored()).equals(bytes)).toBe(true)
      }
    } finally {
      putChunk.mockRestore()
    }
  })

  it('answers a chunk that arrives before its predecessors at once, so one at a time in any order completes', async () => {
    const parts = [randomBytes(100), randomBytes(100), randomBytes(50)]
    const session = await target.open(server, 250)
    // Each answer is awaited before the next chunk is sent.
    expect(await post(server, session.path(2), parts[2]!)).toEqual({
      status: 200,
      body: { bytesWritten: 0 },
    })
    expect(await post(server, session.path(1), parts[1]!)).toEqual({
      status: 200,
      body: { bytesWritten: 0 },
    })
    const last = await post(server, session.path(0), parts[0]!)
    expect(last.status).toBe(200)
    expect(last.body.bytesWritten).toBeGreaterThanOrEqual(100)
    expect(await session.finalize()).toBe(200)
    expect((await session.stored()).equals(Buffer.concat(parts))).toBe(true)
  })

  // Security: an index is taken once; a second body for it, held or written, changes no byte.
  it('refuses a repeated index, still buffered or already written, with 400 and keeps the first bytes', async () => {
    const parts = [randomBytes(100), randomBytes(100), randomBytes(100)]
    const session = await target.open(server, 300)
    expect((await post(server, session.path(1), parts[1]!)).status).toBe(200)
    const buffered = await post(server, session.path(1), randomBytes(100))
    expect(buffered).toEqual({ status: 400, body: { error: ERROR_MESSAGES.duplicateChunk } })
    expect((await post(server, session.path(0), parts[0]!)).status).toBe(200)
    const written = await post(server, session.path(0), randomBytes(100))
    expect(written).toEqual({ status: 400, body: { error: ERROR_MESSAGES.duplicateChunk } })
    expect((await post(server, session.path(1), randomBytes(100))).status).toBe(400)
    expect((await post(server, session.path(2), parts[2]!)).status).toBe(200)
    expect(await session.finalize()).toBe(200)
    expect((await session.stored()).equals(Buffer.concat(parts))).toBe(true)
  })

  // Security: requests in flight are bounded per session, and refused before their bodies.
  it('refuses a request past FILE_UPLOAD_CONCURRENT_CHUNKS + 1 in flight with 429 before reading its body', async () => {
    const parts = Array.from({ length: 5 }, () => randomBytes(100))
    const session = await target.open(server, 500)
    // Chunk 0 streams to the store; 1 and 2 fit the buffer budget of 1000 bytes, and so does 3.
    // An admitted chunk with a length goes to the store at once: the fifth is sent once all four
    // are there, which a fixed pause did not ensure under load.
    const putChunk = vi.spyOn(server.service.blobs, 'putChunk')
    let heads: RawRequest[]
    try {
      heads = await Promise.all([0, 1, 2, 3].map((i) => stalled(session.path(i), 100)))
      await vi.waitFor(() => expect(putChunk).toHaveBeenCalledTimes(4), { timeout: 10_000 })
    } finally {
      putChunk.mockRestore()
    }
    const fifth = await stalled(session.path(4), 100)
    // Only the head was sent: the answer proves the body was not waited for.
    expect(statusAndBody(await fifth.answer(2000))).toEqual({
      status: 429,
      body: { error: ERROR_MESSAGES.tooManyChunksInFlight },
    })
    await fifth.closed
    for (const [i, head] of heads.entries()) await head.write(parts[i]!)
    for (const head of heads) expect((await head.answer(2000))?.status).toBe(200)
    expect((await post(server, session.path(4), parts[4]!)).status).toBe(200)
    expect(await session.finalize()).toBe(200)
    expect((await session.stored()).equals(Buffer.concat(parts))).toBe(true)
  })

  it('refuses a declared length past the rest of the upload before reading, and keeps the session', async () => {
    const session = await target.open(server, 100)
    const over = await stalled(session.path(0), 101)
    expect(statusAndBody(await over.answer(2000))).toEqual({
      status: 400,
      body: { error: ERROR_MESSAGES.sizeMismatch },
    })
    const part = randomBytes(100)
    expect((await post(server, session.path(0), part)).status).toBe(200)
    expect(await session.finalize()).toBe(200)
  })

  it('forgets an early chunk whose body broke off, so it can be sent again', async () => {
    const parts = [randomBytes(100), randomBytes(100)]
    const session = await target.open(server, 200)
    const broken = await stalled(session.path(1), 100, randomBytes(40))
    await pause(100)
    broken.destroy()
    await pause(100)
    expect((await post(server, session.path(1), parts[1]!)).status).toBe(200)
    expect((await post(server, session.path(0), parts[0]!)).status).toBe(200)
    expect(await session.finalize()).toBe(200)
    expect((await session.stored()).equals(Buffer.concat(parts))).toBe(true)
  })

  it('takes a chunk again whole after it broke off while written as it arrived', async () => {
    const session = await target.open(server, 200)
    const broken = await stalled(session.path(0), 100, randomBytes(40))
    await pause(100)
    broken.destroy()
    await pause(100)
    // A stored part is recorded only once whole; a streamed session goes back to its last whole
    // chunk: either way the broken chunk left nothing, so it may be resent.
    const parts = [randomBytes(100), randomBytes(100)]
    expect((await post(server, session.path(0), parts[0]!)).status).toBe(200)
    expect((await post(server, session.path(1), parts[1]!)).status).toBe(200)
    expect(await session.finalize()).toBe(200)
    expect((await session.stored()).equals(Buffer.concat(parts))).toBe(true)
  })

  it('counts a body without Content-Length as it streams and refuses it past the buffer budget', async () => {
    const session = await target.open(server, 3000)
    const head = await RawRequest.open(server.url, session.path(1), {
      'Transfer-Encoding': 'chunked',
    })
    open.push(head)
    const piece = randomBytes(600)
    await head.write(Buffer.from(`${piece.length.toString(16)}\r\n`))
    await head.write(Buffer.concat([piece, Buffer.from('\r\n')]))
    await head.write(Buffer.from(`${piece.length.toString(16)}\r\n`))
    await head.write(Buffer.concat([piece, Buffer.from('\r\n')]))
    expect(statusAndBody(await head.answer(2000))).toEqual({
      status: 429,
      body: { error: ERROR_MESSAGES.tooManyOutOfOrderChunks },
    })
  })
})

describe('the chunk buffer lent to chunks with a Content-Length', () => {
  const MiB = 1024 * 1024
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({
      env: { ...ENV, FILE_UPLOAD_CHUNK_BUFFER: String(3 * MiB), RATE_LIMIT_MAX: '0' },
    })
  })
  afterAll(() => server.close())

  /** Sends `bytes` as one chunk without a Content-Length (chunked transfer encoding). */
  async function postUnsized(path: string, bytes: Uint8Array) {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 256 * 1024) {
          controller.enqueue(bytes.subarray(at, at + 256 * 1024))
        }
        controller.close()
      },
    })
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      body,
      duplex: 'half',
    } as RequestInit)
    return { status: res.status, body: await json(res) }
  }

  it('comes back whole after the chunks that borrowed it, for a body without a length', async () => {
    // Chunks of 2.5 MiB stream through feeds that borrow from the 3 MiB buffer ahead of the
    // store's writes; once they are answered, a 2.5 MiB body without a length needs it all again.
    for (let round = 0; round < 3; round++) {
      const parts = Array.from({ length: 3 }, () => randomBytes(2.5 * MiB))
      const session = await FILE.open(server, 7.5 * MiB)
      const answers = await Promise.all(
        parts.map((part, index) => post(server, session.path(index), part, 10_000)),
      )
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
      expect(await session.finalize()).toBe(200)
      expect((await session.stored()).equals(Buffer.concat(parts))).toBe(true)
    }
    const unsized = randomBytes(2.5 * MiB)
    const session = await FILE.open(server, unsized.length)
    expect(await postUnsized(session.path(0), unsized)).toEqual({
      status: 200,
      body: { bytesWritten: unsized.length },
    })
    expect(await session.finalize()).toBe(200)
    expect((await session.stored()).equals(unsized)).toBe(true)
  })
})
