/**
 * The upload WebSocket over real sockets against the real server: frames, close codes,
 * refusals before the upgrade, backpressure and keepalive (spec: WebSocket /api/upload/ws).
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

import { HEADERS, toBase64Url } from '@fileshare/protocol'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { WS_MAX_BUFFER_MIN } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { createServices } from '../src/composition/container.js'
import { UPLOAD_IN_PROGRESS_MESSAGE } from '../src/sessions/upload-session.js'
import type { UploadSessions } from '../src/sessions/upload-sessions.js'
import { SessionStatusService } from '../src/sessions/session-status.js'
import type { BlobStore } from '../src/storage/blob-store.js'
import { attachUploadSockets, type UploadSockets } from '../src/ws/upload-socket.js'
import { socketInitHeaders, startTestServer, type TestServer } from './harness.js'
import { blobFiles } from './backends.js'
import { interceptWrites } from './intercepted-blobs.js'
import { MALFORMED_FRAME, NOT_UTF8, TestSocket, upgradeAnswer, type Frame } from './test-socket.js'
import { frameHeader, RawSocket, textFrame } from './raw-socket.js'

const KiB = 1024
const MiB = 1024 * KiB
const BASE_URL = 'https://files.example'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type InitHeaders = Record<string, string>

/**
 * The same declaration as `POST /api/upload/init` headers: the init frame names the declared size
 * `contentLength`, which travels over HTTP as `X-Content-Length`.
 */
const HTTP_NAMES: Record<string, string> = {
  ...HEADERS,
  contentLength: HEADERS.declaredContentLength,
}

function asHttpHeaders(headers: InitHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [HTTP_NAMES[name]!, value]),
  )
}

function socketUrl(httpUrl: string, path = '/api/upload/ws'): string {
  return `${httpUrl.replace(/^http/, 'ws')}${path}`
}

/** Waits until no session is open and no partial blob is left, then checks `id` left nothing. */
async function expectNothingStored(
  server: TestServer,
  id: string,
  sessions: UploadSessions = server.service.services.sessions,
): Promise<void> {
  await expect
    .poll(async () => {
      const files = await blobFiles(server)
      return sessions.size === 0 && files.partial.length === 0 && !files.committed.includes(id)
    }, POLL)
    .toBe(true)
  expect((await fetch(`${server.url}/api/info/${id}`)).status).toBe(404)
}

/** A session whose connection was lost: not stored, its bytes and row kept for a resume. */
async function expectKeptForResume(
  server: TestServer,
  id: string,
  sessions: UploadSessions = server.service.services.sessions,
): Promise<void> {
  const { sessionRows: streamed } = server.service.services
  await expect
    .poll(async () => {
      const files = await blobFiles(server)
      const row = await streamed.find(id)
      return sessions.size === 0 && row?.holder === null && !files.committed.includes(id)
    }, POLL)
    .toBe(true)
  expect((await fetch(`${server.url}/api/info/${id}`)).status).toBe(404)
}

async function download(server: TestServer, id: string, authToken: string): Promise<Buffer> {
  const res = await fetch(`${server.url}/api/download/${id}`, {
    headers: { 'X-Auth-Token': authToken },
  })
  expect(res.status).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

/** Commits fsync; on a busy machine that can take a while. */
const POLL = { timeout: 10_000, interval: 50 }

const PROTOCOL_VIOLATION = { type: 'error', message: 'Protocol violation', status: 400 }
const SIZE_MISMATCH = {
  type: 'error',
  message: 'Body size does not match declared content length',
  status: 400,
}

describe('upload socket', () => {
  let server: TestServer
  let url: string

  beforeAll(async () => {
    server = await startTestServer({
      env: { BASE_URL, FILE_MAX_SIZE: '8MB', FILE_DOWNLOAD_OPTIONS: '1,2,5' },
    })
    url = socketUrl(server.url)
  })
  afterAll(() => server.close())

  describe('an upload that completes', () => {
    it('answers ready, stores the binary frames in order, answers done with the share url and closes 1000', async () => {
      const body = randomBytes(3 * MiB + 1234)
      const headers = socketInitHeaders(body.length, { fileCount: '2', maxDownloads: '2' })
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers })
      expect(id).toMatch(UUID)
      socket.sendBytes(body, 256 * KiB)
      socket.sendJson({ type: 'finalize' })
      expect(await socket.waitFor('done')).toEqual({ type: 'done', id, url: `${BASE_URL}/d/${id}` })
      expect((await socket.closed).code).toBe(1000)
      expect(socket.frames.map((f) => f.type)).toEqual(['ready', 'done'])

      const info = (await (await fetch(`${server.url}/api/info/${id}`)).json()) as Frame
      expect(info).toMatchObject({
        id,
        size: body.length,
        salt: headers.salt,
        fileCount: 2,
        maxDownloads: 2,
      })
      expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
    })

    it('records the password settings of the init headers', async () => {
      const passwordSalt = toBase64Url(randomBytes(16))
      const headers = socketInitHeaders(100, {
        hasPassword: 'true',
        passwordSalt,
        passwordAlgo: 'argon2id-v2',
      })
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers })
      socket.sendBytes(randomBytes(100), 100)
      socket.sendJson({ type: 'finalize' })
      await socket.waitFor('done')
      const info = (await (await fetch(`${server.url}/api/info/${id}`)).json()) as Frame
      expect(info).toMatchObject({ hasPassword: true, passwordSalt, passwordAlgo: 'argon2id-v2' })
    })

    it('accepts frames that split the payload anywhere, including empty ones', async () => {
      const body = randomBytes(10_000)
      const headers = socketInitHeaders(body.length)
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers })
      for (const [start, end] of [
        [0, 1],
        [1, 1],
        [1, 4097],
        [4097, 10_000],
      ] as const) {
        socket.ws.send(body.subarray(start, end), { binary: true })
      }
      socket.sendJson({ type: 'finalize' })
      await socket.waitFor('done')
      expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
    })
  })

  describe('protocol violations close with 1002 after an error frame', () => {
    it('refuses a binary frame before init', async () => {
      const socket = await TestSocket.open(url)
      socket.ws.send(randomBytes(10), { binary: true })
      expect((await socket.closed).code).toBe(1002)
      expect(socket.frames).toEqual([PROTOCOL_VIOLATION])
      expect(server.service.services.sessions.size).toBe(0)
    })

    it.each([
      ['a second init', { type: 'init', headers: socketInitHeaders(10) }],
      ['an unknown type', { type: 'resume' }],
      ['a frame without a type', { headers: {} }],
    ])('refuses %s', async (_name, frame) => {
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers: socketInitHeaders(10) })
      socket.sendJson(frame)
      expect((await socket.closed).code).toBe(1002)
      expect(socket.frames).toEqual([{ type: 'ready', id }, PROTOCOL_VIOLATION])
      await expectNothingStored(server, id)
    })

    it('refuses finalize before init', async () => {
      const socket = await TestSocket.open(url)
      socket.sendJson({ type: 'finalize' })
      expect((await socket.closed).code).toBe(1002)
      expect(socket.frames).toEqual([PROTOCOL_VIOLATION])
    })

    it('refuses a binary frame after finalize and stores nothing', async () => {
      const body = randomBytes(64 * KiB)
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers: socketInitHeaders(body.length) })
      socket.sendBytes(body, 16 * KiB)
      socket.sendJson({ type: 'finalize' })
      socket.ws.send(randomBytes(1), { binary: true })
      expect((await socket.closed).code).toBe(1002)
      expect(socket.frames).toEqual([{ type: 'ready', id }, PROTOCOL_VIOLATION])
      await expectNothingStored(server, id)
    })
  })

  describe('unsupported data closes with 1003 after an error frame', () => {
    it.each([
      ['text that is not JSON', 'init'],
      ['JSON that is not an object', '["init"]'],
      ['JSON null', 'null'],
    ])('refuses %s', async (_name, text) => {
      const socket = await TestSocket.open(url)
      socket.ws.send(text)
      expect((await socket.closed).code).toBe(1003)
      expect(socket.frames).toEqual([{ type: 'error', message: 'Unsupported frame', status: 400 }])
    })
  })

  describe('frames the WebSocket layer refuses get an error frame before the close', () => {
    it('refuses a text frame that is not UTF-8 with 1003', async () => {
      const socket = await TestSocket.open(url)
      socket.ws.send(NOT_UTF8, { binary: false })
      expect((await socket.closed).code).toBe(1003)
      expect(socket.frames).toEqual([{ type: 'error', message: 'Unsupported frame', status: 400 }])
    })

    it('refuses a malformed frame with 1002 and stores nothing', async () => {
      const body = randomBytes(1000)
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers: socketInitHeaders(body.length) })
      socket.writeRaw(MALFORMED_FRAME)
      expect((await socket.closed).code).toBe(1002)
      expect(socket.frames).toEqual([{ type: 'ready', id }, PROTOCOL_VIOLATION])
      await expectNothingStored(server, id)
    })
  })

  describe('refusals close with 1008 and carry the status of the same HTTP refusal', () => {
    it.each([
      ['a missing auth token', socketInitHeaders(10, { authToken: undefined })],
      [
        'an owner token that is not base64url',
        socketInitHeaders(10, { ownerToken: 'not base64url!' }),
      ],
      ['a short salt', socketInitHeaders(10, { salt: toBase64Url(randomBytes(8)) })],
      ['a download count that is not an option', socketInitHeaders(10, { maxDownloads: '3' })],
      ['an expiry that is not an option', socketInitHeaders(10, { expireSec: '42' })],
      ['no files', socketInitHeaders(10, { fileCount: '0' })],
      [
        'a password without its salt',
        socketInitHeaders(10, { hasPassword: 'true', passwordAlgo: 'argon2id-v2' }),
      ],
      ['hasPassword that is not true or false', socketInitHeaders(10, { hasPassword: 'yes' })],
      ['a size that is not a number', socketInitHeaders(10, { contentLength: '10 bytes' })],
      ['an empty upload', socketInitHeaders(0)],
      ['a size over FILE_MAX_SIZE', socketInitHeaders(8 * MiB + 1)],
    ])('refuses %s', async (_name, headers) => {
      const http = await fetch(`${server.url}/api/upload/init`, {
        method: 'POST',
        headers: asHttpHeaders(headers),
      })
      const httpBody = (await http.json()) as { error: string }
      expect(http.status).toBeGreaterThanOrEqual(400)

      const socket = await TestSocket.open(url)
      socket.sendJson({ type: 'init', headers })
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toHaveLength(1)
      expect(socket.frames[0]).toMatchObject({
        type: 'error',
        message: httpBody.error,
        status: http.status,
      })
    })

    it('answers 413 for a size over FILE_MAX_SIZE, as the HTTP route does', async () => {
      const socket = await TestSocket.open(url)
      socket.sendJson({ type: 'init', headers: socketInitHeaders(8 * MiB + 1) })
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toEqual([
        { type: 'error', message: 'File size exceeds maximum allowed size', status: 413 },
      ])
    })

    it.each([
      ['no headers', { type: 'init' }],
      ['headers that are not an object', { type: 'init', headers: 'x-auth-token: abc' }],
      [
        'header values that are not strings',
        { type: 'init', headers: { ...socketInitHeaders(10), contentLength: 10 } },
      ],
    ])('refuses an init frame with %s as invalid headers', async (_name, frame) => {
      const socket = await TestSocket.open(url)
      socket.sendJson(frame)
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames[0]).toMatchObject({
        type: 'error',
        message: 'Invalid request',
        status: 400,
      })
      expect(server.service.services.sessions.size).toBe(0)
    })

    it('refuses a file count that is not a string instead of declaring one file', async () => {
      const socket = await TestSocket.open(url)
      socket.sendJson({ type: 'init', headers: { ...socketInitHeaders(10), fileCount: 3 } })
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toEqual([
        {
          type: 'error',
          message: 'Invalid request',
          status: 400,
          details: { 'x-file-count': 'must be a whole number' },
        },
      ])
      expect(server.service.services.sessions.size).toBe(0)
    })

    it('refuses a finalize that arrives before every declared byte, and stores nothing', async () => {
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers: socketInitHeaders(1000) })
      socket.sendBytes(randomBytes(999), 500)
      socket.sendJson({ type: 'finalize' })
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toEqual([{ type: 'ready', id }, SIZE_MISMATCH])
      await expectNothingStored(server, id)
    })

    it('refuses bytes past the declared length, and stores nothing', async () => {
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers: socketInitHeaders(1000) })
      socket.sendBytes(randomBytes(600), 600)
      socket.sendBytes(randomBytes(401), 401)
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toEqual([{ type: 'ready', id }, SIZE_MISMATCH])
      await expectNothingStored(server, id)
    })
  })

  // Security: what a socket may be sent is decided from each frame's header, before its payload.
  describe('frames longer than a socket may be sent are refused from their header', () => {
    const texts = (socket: RawSocket) => socket.frames.texts.map((text) => JSON.parse(text))

    it('refuses the header of a 32 MiB binary frame before init with 1002', async () => {
      const socket = await RawSocket.open(url)
      await socket.write(frameHeader(0x2, 32 * MiB))
      await socket.closed
      expect(socket.frames.closeCode).toBe(1002)
      expect(texts(socket)).toEqual([PROTOCOL_VIOLATION])
      expect(server.service.services.sessions.size).toBe(0)
    })

    it('refuses the header of a frame longer than the upload lacks with 1008, storing nothing', async () => {
      const socket = await RawSocket.open(url)
      await socket.write(
        textFrame(JSON.stringify({ type: 'init', headers: socketInitHeaders(MiB) })),
      )
      await socket.until(() => socket.frames.texts.length > 0)
      const [ready] = texts(socket) as [{ id: string }]
      await socket.write(frameHeader(0x2, 600 * KiB))
      await socket.write(Buffer.alloc(600 * KiB))
      await socket.write(frameHeader(0x2, 600 * KiB))
      await socket.closed
      expect(socket.frames.closeCode).toBe(1008)
      expect(texts(socket)).toEqual([{ type: 'ready', id: ready.id }, SIZE_MISMATCH])
      await expectNothingStored(server, ready.id)
    })
  })

  describe('a socket that ends before done', () => {
    async function midUpload(
      asked: { resumable?: boolean } = {},
    ): Promise<{ socket: TestSocket; id: string; ownerToken: string }> {
      const socket = await TestSocket.open(url)
      const headers = socketInitHeaders(2 * MiB)
      const id = await socket.init({ type: 'init', headers, ...asked })
      socket.sendBytes(randomBytes(MiB + 5), 64 * KiB)
      await expect.poll(() => server.service.services.sessions.size).toBe(1)
      await new Promise((resolve) => setTimeout(resolve, 100))
      return { socket, id, ownerToken: headers.ownerToken! }
    }

    it('leaves no record and no blob when the client closes with 1000 mid-upload', async () => {
      const { socket, id } = await midUpload()
      socket.ws.close(1000)
      await expectNothingStored(server, id)
      expect(await server.service.services.sessionRows.find(id)).toBeUndefined()
    })

    it('keeps the session for a resume, storing nothing, when the connection drops', async () => {
      const { socket, id } = await midUpload({ resumable: true })
      socket.ws.terminate()
      await expectKeptForResume(server, id)
    })

    // Spec: a client that did not ask to resume sees its upload end with its socket.
    it('ends the session at once when a client that did not ask to resume drops', async () => {
      const { socket, id, ownerToken } = await midUpload()
      socket.ws.terminate()
      const { sessionRows: streamed } = server.service.services
      await expect
        .poll(async () => {
          const files = await blobFiles(server)
          const left = files.partial.some((name) => name.startsWith(id))
          return !left && (await streamed.find(id)) === undefined
        }, POLL)
        .toBe(true)
      expect((await fetch(`${server.url}/api/info/${id}`)).status).toBe(404)
      const resumed = await TestSocket.open(url)
      expect(await resumed.refusal({ type: 'resume', id, ownerToken, offset: 0 })).toEqual({
        type: 'error',
        message: 'Upload not found',
        status: 404,
      })
    }, 30_000)
  })

  describe('the upgrade', () => {
    it('accepts a client without Origin (the command line) and one from BASE_URL', async () => {
      expect(await upgradeAnswer(url)).toEqual({ status: 101, body: 'open' })
      expect(await upgradeAnswer(url, { Origin: BASE_URL })).toEqual({ status: 101, body: 'open' })
    })

    it.each(['https://evil.example', 'http://files.example', 'https://files.example:8443', 'null'])(
      'refuses Origin %s with 403 before upgrading',
      async (origin) => {
        expect(await upgradeAnswer(url, { Origin: origin })).toEqual({
          status: 403,
          body: { error: 'Origin not allowed' },
        })
      },
    )

    it('answers 404 for other paths', async () => {
      for (const path of ['/api/upload/ws/', '/api/upload/wss', '/api/request/x/upload/ws', '/']) {
        expect(await upgradeAnswer(socketUrl(server.url, path)), path).toEqual({
          status: 404,
          body: { error: 'Not found' },
        })
      }
    })

    it('still serves plain HTTP on the same port', async () => {
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    })
  })
})

describe('upload sockets bound before init', () => {
  let server: TestServer
  const INIT_TIMEOUT_MS = 300

  beforeAll(async () => {
    server = await startTestServer({
      env: { BASE_URL, FILE_MAX_SIZE: '8MB' },
      uploadInitTimeoutMs: INIT_TIMEOUT_MS,
    })
  })
  afterAll(() => server.close())

  // Security: a socket that never sends init is closed, so silent sockets cannot pile up.
  it.each([['/api/upload/ws'], [`/api/request/${crypto.randomUUID()}/upload/ws`]])(
    'closes %s with 1008 after an error frame when no init arrives in time',
    async (path) => {
      const socket = await TestSocket.open(socketUrl(server.url, path))
      const opened = performance.now()
      const closed = await socket.closed
      expect(closed.code).toBe(1008)
      expect(performance.now() - opened).toBeGreaterThanOrEqual(INIT_TIMEOUT_MS - 50)
      expect(socket.frames).toEqual([
        { type: 'error', message: 'No init frame in time', status: 408 },
      ])
    },
  )

  it('keeps a socket whose init arrived in time past the init timeout', async () => {
    const body = randomBytes(1000)
    const socket = await TestSocket.open(socketUrl(server.url))
    const id = await socket.init({ type: 'init', headers: socketInitHeaders(body.length) })
    await new Promise((resolve) => setTimeout(resolve, 2 * INIT_TIMEOUT_MS))
    socket.sendBytes(body)
    socket.sendJson({ type: 'finalize' })
    expect((await socket.waitFor('done')).id).toBe(id)
    expect((await socket.closed).code).toBe(1000)
  })

  // Security: control frames are parsed whole, so their size is bounded far below the buffer.
  it.each([
    ['before init', false],
    ['after ready', true],
  ])(
    'closes with 1009 after an error frame on a text frame over 16 KiB %s',
    async (_when, ready) => {
      const socket = await TestSocket.open(socketUrl(server.url))
      let id: string | undefined
      if (ready) id = await socket.init({ type: 'init', headers: socketInitHeaders(1000) })
      socket.sendJson({ type: 'finalize', pad: 'x'.repeat(16 * KiB) })
      expect((await socket.closed).code).toBe(1009)
      expect(socket.frames.at(-1)).toEqual({
        type: 'error',
        message: 'Control frame too large',
        status: 413,
      })
      if (id) await expectNothingStored(server, id)
    },
  )

  it('accepts a control frame of 16 KiB', async () => {
    const socket = await TestSocket.open(socketUrl(server.url))
    const frame = { type: 'init', headers: socketInitHeaders(10) }
    const text = JSON.stringify(frame)
    const padded = `${text.slice(0, -1)},"pad":"${'x'.repeat(16 * KiB - text.length - 9)}"}`
    expect(Buffer.byteLength(padded)).toBe(16 * KiB)
    socket.ws.send(padded)
    expect((await socket.waitFor('ready')).id).toMatch(UUID)
    socket.ws.close(1000)
  })
})

describe('upload socket with FILE_UPLOAD_WS=false', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_WS: 'false' } })
  })
  afterAll(() => server.close())

  it('refuses the upgrade with 404 so clients fall back to chunked HTTP', async () => {
    expect(await upgradeAnswer(socketUrl(server.url))).toEqual({
      status: 404,
      body: { error: 'WebSocket upload is disabled' },
    })
  })
})

describe('upload socket with FILE_UPLOAD_WS_PROGRESS_WINDOW_SEC=1', () => {
  let server: TestServer
  let side: Awaited<ReturnType<typeof sideSockets>>
  const STALLED = { type: 'error', message: 'Upload made too little progress', status: 408 }

  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_WS_PROGRESS_WINDOW_SEC: '1' } })
    // Sockets that are pinged several times a window, and answer every ping.
    side = await sideSockets(server, server.service.blobs)
  })
  afterAll(async () => {
    await side.close()
    await server.close()
  })

  // Security: a socket kept open by its pongs alone must not hold its blob, quota and buffer.
  it('ends a socket that delivers nothing within a window, however many pings it answers', async () => {
    const socket = await TestSocket.open(side.url)
    let pings = 0
    socket.ws.on('ping', () => pings++)
    const id = await socket.init({ type: 'init', headers: socketInitHeaders(100) })
    expect((await socket.closed).code).toBe(1008)
    expect(pings).toBeGreaterThanOrEqual(1)
    expect(socket.frames).toEqual([{ type: 'ready', id }, STALLED])
    await expectNothingStored(server, id, side.sessions)
  })

  // Security: a trickle of bytes is no more progress than pongs are (spec: 1 MiB per window).
  it('ends a socket that delivers less than 1 MiB of a larger rest within a window', async () => {
    const socket = await TestSocket.open(socketUrl(server.url))
    const id = await socket.init({ type: 'init', headers: socketInitHeaders(4 * MiB) })
    const trickle = setInterval(() => socket.sendBytes(randomBytes(64 * KiB)), 100)
    try {
      expect((await socket.closed).code).toBe(1008)
    } finally {
      clearInterval(trickle)
    }
    expect(socket.frames).toEqual([{ type: 'ready', id }, STALLED])
    await expectNothingStored(server, id)
  })

  it('keeps a socket that delivers 1 MiB a window for longer than a window', async () => {
    const body = randomBytes(6 * MiB)
    const socket = await TestSocket.open(socketUrl(server.url))
    const headers = socketInitHeaders(body.length)
    const id = await socket.init({ type: 'init', headers })
    const started = performance.now()
    for (let at = 0; at < body.length; at += MiB) {
      socket.sendBytes(body.subarray(at, at + MiB), MiB)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    socket.sendJson({ type: 'finalize' })
    expect(await socket.waitFor('done')).toEqual({ type: 'done', id, url: expect.any(String) })
    expect(performance.now() - started).toBeGreaterThan(1000)
    expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
  })
})

describe('upload socket quota', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1MB' } })
  })
  afterAll(() => server.close())

  it('refuses an upload over the remaining quota with 1008 and the HTTP status', async () => {
    const headers = socketInitHeaders(MiB + 1)
    const http = await fetch(`${server.url}/api/upload/init`, {
      method: 'POST',
      headers: asHttpHeaders(headers),
    })
    const httpBody = (await http.json()) as { error: string }
    expect(http.status).toBe(413)

    const socket = await TestSocket.open(socketUrl(server.url))
    socket.sendJson({ type: 'init', headers })
    expect((await socket.closed).code).toBe(1008)
    expect(socket.frames).toEqual([{ type: 'error', message: httpBody.error, status: 413 }])
  })
})

describe('upload socket with the smallest FILE_UPLOAD_WS_MAX_BUFFER', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({
      env: { FILE_UPLOAD_WS_MAX_BUFFER: String(WS_MAX_BUFFER_MIN) },
    })
  })
  afterAll(() => server.close())

  it('closes with 1009 on a frame larger than the buffer, and stores nothing', async () => {
    const socket = await TestSocket.open(socketUrl(server.url))
    const id = await socket.init({ type: 'init', headers: socketInitHeaders(4 * MiB) })
    socket.ws.send(randomBytes(WS_MAX_BUFFER_MIN + 1), { binary: true })
    expect((await socket.closed).code).toBe(1009)
    expect(socket.frames).toEqual([
      { type: 'ready', id },
      { type: 'error', message: 'Receive buffer exceeded', status: 413 },
    ])
    await expectNothingStored(server, id)
  })

  it('takes a frame of exactly the buffer size', async () => {
    const body = randomBytes(WS_MAX_BUFFER_MIN)
    const headers = socketInitHeaders(body.length)
    const socket = await TestSocket.open(socketUrl(server.url))
    const id = await socket.init({ type: 'init', headers })
    socket.sendBytes(body, body.length)
    socket.sendJson({ type: 'finalize' })
    await socket.waitFor('done')
    expect((await socket.closed).code).toBe(1000)
    expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
  })
})

/**
 * The keepalive of the sockets of `sideSockets`: short enough to see several ticks, and long
 * enough that a loaded machine's scheduling stall between a ping and its pong is not a silence.
 */
const KEEPALIVE_MS = 300

/**
 * Upload sockets on a second HTTP server over the test server's database and blob directory,
 * with `blobs` as its store: the tests' view into flow control and storage failures.
 */
async function sideSockets(server: TestServer, blobs: BlobStore) {
  const { config, db } = server.service
  const logger = createLogger('silent')
  const services = await createServices(config, db, blobs, logger, Date.now)
  const sideServer = createServer((_req, res) => res.writeHead(404).end())
  await new Promise<void>((resolve) => sideServer.listen(0, '127.0.0.1', resolve))
  const sockets = attachUploadSockets(sideServer, {
    config,
    uploads: services.uploads,
    logger,
    keepaliveMs: KEEPALIVE_MS,
    ipOf: () => '127.0.0.1',
    requireLogin: async () => undefined,
  })
  return {
    sockets,
    sessions: services.sessions,
    url: `ws://127.0.0.1:${(sideServer.address() as AddressInfo).port}/api/upload/ws`,
    async close() {
      await sockets.close()
      await new Promise((resolve) => sideServer.close(resolve))
    },
  }
}

/** Sockets over a slow store with a short keepalive; what they store downloads from the server. */
describe('upload socket flow control', () => {
  let server: TestServer
  let side: Awaited<ReturnType<typeof sideSockets>>
  let sockets: UploadSockets
  let sessions: UploadSessions
  let url: string
  const MAX_BUFFER = 8 * MiB

  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_WS_MAX_BUFFER: String(MAX_BUFFER) } })
    const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 15))
    side = await sideSockets(server, interceptWrites(server.service.blobs, slow))
    ;({ sockets, sessions, url } = side)
  })
  afterAll(async () => {
    await side.close()
    await server.close()
  })

  it('takes 64 MiB sent as fast as possible in 1 MiB frames without passing an 8 MiB buffer', async () => {
    const body = randomBytes(64 * MiB)
    const headers = socketInitHeaders(body.length)
    const socket = await TestSocket.open(url)
    const id = await socket.init({ type: 'init', headers })
    socket.sendBytes(body, MiB)
    socket.sendJson({ type: 'finalize' })
    await socket.waitFor('done')
    expect((await socket.closed).code).toBe(1000)
    // The store was slower than the socket (the buffer filled to the high-water mark), yet the
    // paused socket kept it under the bound: without the pause it would have held most of 64 MiB.
    expect(sockets.peakPendingBytes).toBeGreaterThanOrEqual(4 * MiB)
    expect(sockets.peakPendingBytes).toBeLessThanOrEqual(MAX_BUFFER)
    const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
    expect(digest(await download(server, id, headers.authToken!))).toBe(digest(body))
  }, 60_000)

  it('terminates a socket that does not answer pings, storing nothing, resumable', async () => {
    const socket = await TestSocket.open(url, { autoPong: false })
    const headers = socketInitHeaders(100)
    const id = await socket.init({ type: 'init', headers, resumable: true })
    expect((await socket.closed).code).toBe(1006)
    await expectKeptForResume(server, id, sessions)
  })

  it('keeps a socket that answers pings open across several keepalive ticks', async () => {
    const headers = socketInitHeaders(100)
    const socket = await TestSocket.open(url)
    const id = await socket.init({ type: 'init', headers })
    await new Promise((resolve) => setTimeout(resolve, 5 * KEEPALIVE_MS))
    socket.sendBytes(randomBytes(100), 100)
    socket.sendJson({ type: 'finalize' })
    expect(await socket.waitFor('done')).toMatchObject({ id })
  })

  // The pong is sent, then the process stalls before it reads again, as a loaded machine may
  // hold it up: the peer is not to blame for the late read. A stall of a few ticks makes the
  // next tick late; a shorter one lets it fire on time, before the read that brings the pong in.
  it.each([
    ['for a few keepalive ticks', 3.5],
    ['for less than a tick and a half', 1.2],
  ])('keeps a socket whose pong arrived while the process stalled %s', async (_, ticks) => {
    const headers = socketInitHeaders(100)
    const socket = await TestSocket.open(url)
    const id = await socket.init({ type: 'init', headers })
    await new Promise<void>((resolve) =>
      socket.ws.once('ping', () => {
        const until = performance.now() + ticks * KEEPALIVE_MS
        while (performance.now() < until);
        resolve()
      }),
    )
    socket.sendBytes(randomBytes(100), 100)
    socket.sendJson({ type: 'finalize' })
    expect(await socket.waitFor('done')).toMatchObject({ id })
  })

  it('refuses new upgrades after stopAccepting; close() ends open sockets, storing nothing', async () => {
    const kept = await TestSocket.open(url)
    const keptId = await kept.init({
      type: 'init',
      headers: socketInitHeaders(100),
      resumable: true,
    })
    const socket = await TestSocket.open(url)
    const id = await socket.init({ type: 'init', headers: socketInitHeaders(100) })
    sockets.stopAccepting()
    expect(await upgradeAnswer(url)).toEqual({
      status: 503,
      body: { error: 'Server is shutting down' },
    })
    await sockets.close()
    expect((await socket.closed).code).toBe(1006)
    expect((await kept.closed).code).toBe(1006)
    // Only the session whose client asked to resume it outlives its socket.
    await expectKeptForResume(server, keptId, sessions)
    await expect.poll(() => server.service.services.sessionRows.find(id), POLL).toBeUndefined()
  })
})

const isAny = (_context: unknown): _context is unknown => true

/**
 * A resume reaching this instance while the connection it replaces is still here: one that lost
 * its client but is paused behind a store holding its writes has not seen its close yet.
 */
describe('resuming over a new socket while the old one is still here', () => {
  let server: TestServer
  let side: Awaited<ReturnType<typeof sideSockets>>
  /** Writes wait for this gate while it is shut. */
  let gate: { opened: Promise<void>; open(): void }
  const shutGate = () => {
    let open = () => undefined as void
    const opened = new Promise<void>((resolve) => (open = resolve))
    gate = { opened, open }
  }

  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_WS_MAX_BUFFER: String(8 * MiB) } })
    shutGate()
    gate.open()
    side = await sideSockets(
      server,
      interceptWrites(server.service.blobs, () => gate.opened),
    )
  })
  // A failed test leaves no writes waiting for the next.
  afterEach(() => gate.open())
  afterAll(async () => {
    await side.close()
    await server.close()
  })

  it('gets ready, not 409, once the old socket drains and ends; the upload completes', async () => {
    const body = randomBytes(12 * MiB)
    const headers = socketInitHeaders(body.length)
    const old = await TestSocket.open(side.url)
    const id = await old.init({ type: 'init', headers, resumable: true })
    shutGate()
    // The server reads past its high-water mark and pauses; the client then drops.
    old.sendBytes(body.subarray(0, 8 * MiB), 256 * KiB)
    await expect
      .poll(() => side.sockets.peakPendingBytes, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(4 * MiB)
    old.ws.terminate()
    await old.closed

    // The old connection still holds the session while its writes wait: the resume pings it (a
    // paused one is spared) and waits for it to end, within the server's bound for that wait.
    const held = side.sessions.get(id, isAny)!
    const waiting = new Promise<void>((resolve) => {
      const probe = held.probe.bind(held)
      held.probe = (withinMs) => {
        probe(withinMs)
        resolve()
      }
    })
    const resumed = await TestSocket.open(side.url)
    resumed.sendJson({ type: 'resume', id, ownerToken: headers.ownerToken, offset: 0 })
    await waiting
    expect(resumed.frames).toEqual([])
    gate.open()
    const ready = await resumed.waitFor('ready')
    expect(ready).toMatchObject({ type: 'ready', id, offset: 0 })
    resumed.sendBytes(body, 256 * KiB)
    resumed.sendJson({ type: 'finalize' })
    expect(await resumed.waitFor('done')).toMatchObject({ id })
    expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
  }, 30_000)

  it('answers the status with the point the ending connection records, not the checkpoint before', async () => {
    const body = randomBytes(3 * MiB)
    const headers = socketInitHeaders(body.length)
    const old = await TestSocket.open(side.url)
    const id = await old.init({ type: 'init', headers, resumable: true })
    shutGate()
    old.sendBytes(body.subarray(0, 2 * MiB), 256 * KiB)
    await expect.poll(() => side.sessions.get(id, isAny)?.bytesAccepted).toBe(2 * MiB)
    old.ws.terminate()
    await old.closed
    // The connection's end is seen; its suspension waits for the writes before it records.
    await expect.poll(() => side.sessions.get(id, isAny)).toBeUndefined()
    const { sessionRows: streamed, tombstones } = server.service.services
    const provider = new SessionStatusService(streamed, side.sessions, tombstones)
    const status = provider.status('upload', id, headers.ownerToken)
    setTimeout(() => gate.open(), 200)
    expect(await status).toMatchObject({ bytesWritten: 2 * MiB, transport: 'ws' })
  }, 30_000)

  // Security: two connections never write one session; a live one keeps it.
  it('still refuses a resume with 409 while the old socket is live, which then completes', async () => {
    const body = randomBytes(2 * MiB)
    const headers = socketInitHeaders(body.length)
    const live = await TestSocket.open(side.url)
    const id = await live.init({ type: 'init', headers, resumable: true })
    live.sendBytes(body.subarray(0, MiB), 256 * KiB)
    await refusedWhileHeld(side.url, live, { id, headers, body })
  }, 30_000)

  /**
   * A resume over a new socket on `url` gets 409 while `holder` keeps the session; the holder
   * then sends the rest from 1 MiB and its upload downloads byte-exact.
   */
  async function refusedWhileHeld(
    url: string,
    holder: TestSocket,
    upload: { id: string; headers: InitHeaders; body: Buffer },
  ): Promise<void> {
    const { id, headers, body } = upload
    const second = await TestSocket.open(url)
    expect(
      await second.refusal({ type: 'resume', id, ownerToken: headers.ownerToken, offset: 0 }),
    ).toEqual({ type: 'error', message: UPLOAD_IN_PROGRESS_MESSAGE, status: 409 })
    holder.sendBytes(body.subarray(MiB), 256 * KiB)
    holder.sendJson({ type: 'finalize' })
    expect(await holder.waitFor('done')).toMatchObject({ id })
    expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
  }

  /**
   * An old socket on the test server (its keepalive far off) that received some bytes, then went
   * quiet with its TCP connection still open, as after a client's network change; `autoPong`
   * false makes it a peer that no longer answers pings.
   */
  async function quietHolder(body: Buffer, autoPong: boolean) {
    const headers = socketInitHeaders(body.length)
    const old = await TestSocket.open(socketUrl(server.url), { autoPong })
    const id = await old.init({ type: 'init', headers, resumable: true })
    old.sendBytes(body.subarray(0, MiB), 256 * KiB)
    const { sessions } = server.service.services
    await expect.poll(() => sessions.get(id, isAny)?.bytesAccepted).toBe(MiB)
    return { old, id, headers }
  }

  it('pings a silent old socket at once and drops it: the resume gets ready, the upload completes', async () => {
    const body = randomBytes(3 * MiB)
    const { old, id, headers } = await quietHolder(body, false)
    try {
      const resumed = await TestSocket.open(socketUrl(server.url))
      resumed.sendJson({ type: 'resume', id, ownerToken: headers.ownerToken, offset: 0 })
      // Within the resume's own wait (else 409), long before the keepalive would end the old one.
      expect(await resumed.firstFrame()).toEqual({ type: 'ready', id, offset: 0 })
      expect((await old.closed).code).toBe(1006)
      resumed.sendBytes(body, 256 * KiB)
      resumed.sendJson({ type: 'finalize' })
      expect(await resumed.waitFor('done')).toMatchObject({ id })
      expect((await download(server, id, headers.authToken!)).equals(body)).toBe(true)
    } finally {
      old.ws.terminate()
    }
  }, 30_000)

  // Security: a quiet holder that still answers its ping keeps the session; never two writers.
  it('keeps a quiet old socket that answers the ping: the resume gets 409, the old one completes', async () => {
    const body = randomBytes(2 * MiB)
    const { old, id, headers } = await quietHolder(body, true)
    await refusedWhileHeld(socketUrl(server.url), old, { id, headers, body })
  }, 30_000)
})

describe('upload socket with failing storage', () => {
  let server: TestServer
  let side: Awaited<ReturnType<typeof sideSockets>>

  beforeAll(async () => {
    server = await startTestServer()
    const fail = () => Promise.reject(new Error('the disk is gone'))
    side = await sideSockets(server, interceptWrites(server.service.blobs, fail))
  })
  afterAll(async () => {
    await side.close()
    await server.close()
  })

  it('closes with 1011 after an internal-error frame that leaks nothing, and stores nothing', async () => {
    const socket = await TestSocket.open(side.url)
    const id = await socket.init({ type: 'init', headers: socketInitHeaders(2 * MiB) })
    socket.sendBytes(randomBytes(2 * MiB), MiB)
    expect((await socket.closed).code).toBe(1011)
    expect(socket.frames.at(-1)).toEqual({
      type: 'error',
      message: 'Internal server error',
      status: 500,
    })
    await expectNothingStored(server, id, side.sessions)
  })
})

describe('upload sockets with FILE_UPLOAD_WS_MAX_PER_IP=2', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({
      env: { FILE_UPLOAD_WS_MAX_PER_IP: '2', TRUST_PROXY: '1', ENABLED_SERVICES: 'file,request' },
    })
  })
  afterAll(() => server.close())

  // Security: one client address cannot hold more than its share of upload sockets.
  it('refuses a third socket from one address with 429 before the upgrade, of either path', async () => {
    const from = (ip: string) => ({ 'X-Forwarded-For': ip })
    const requestPath = `/api/request/${crypto.randomUUID()}/upload/ws`
    const first = await TestSocket.open(socketUrl(server.url), { headers: from('10.1.0.1') })
    const second = await TestSocket.open(socketUrl(server.url, requestPath), {
      headers: from('10.1.0.1'),
    })
    const refused = { status: 429, body: { error: 'Too many upload sockets from this address' } }
    expect(await upgradeAnswer(socketUrl(server.url), from('10.1.0.1'))).toEqual(refused)
    expect(await upgradeAnswer(socketUrl(server.url, requestPath), from('10.1.0.1'))).toEqual(
      refused,
    )
    // Another address is counted apart.
    expect((await upgradeAnswer(socketUrl(server.url), from('10.1.0.2'))).status).toBe(101)
    // A socket that has closed no longer counts.
    first.ws.close(1000)
    await first.closed
    await expect
      .poll(async () => (await upgradeAnswer(socketUrl(server.url), from('10.1.0.1'))).status, POLL)
      .toBe(101)
    second.ws.close(1000)
  })
})

describe('upload sockets sharing the smallest FILE_UPLOAD_WS_BUFFER_BUDGET', () => {
  let server: TestServer
  let side: Awaited<ReturnType<typeof sideSockets>>
  const LIMIT = WS_MAX_BUFFER_MIN

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        FILE_UPLOAD_WS_MAX_BUFFER: String(LIMIT),
        FILE_UPLOAD_WS_BUFFER_BUDGET: String(LIMIT),
      },
    })
    side = await sideSockets(server, server.service.blobs)
  })
  afterAll(async () => {
    await side.close()
    await server.close()
  })

  // Security: past the budget a socket is paused, never buffered; it goes on once bytes drain.
  it('pauses a socket while another holds the budget with a frame under way, then completes both', async () => {
    const { sockets } = side
    const frame = 2 * MiB
    const waiting = await TestSocket.open(side.url)
    const waitingBody = randomBytes(4 * MiB)
    const waitingHeaders = socketInitHeaders(waitingBody.length)
    const waitingId = await waiting.init({ type: 'init', headers: waitingHeaders })

    const holder = await RawSocket.open(side.url)
    const holderBody = randomBytes(frame)
    const holderHeaders = socketInitHeaders(frame)
    await holder.write(textFrame(JSON.stringify({ type: 'init', headers: holderHeaders })))
    await holder.until(() => holder.frames.texts.length > 0)
    const holderId = (JSON.parse(holder.frames.texts[0]!) as { id: string }).id
    // The header and half the payload: the whole frame is taken from the budget.
    await holder.write(frameHeader(0x2, frame))
    await holder.write(holderBody.subarray(0, frame / 2))
    await expect.poll(() => sockets.budget.peakBytes >= frame, POLL).toBe(true)

    waiting.sendBytes(waitingBody, MiB)
    waiting.sendJson({ type: 'finalize' })
    await expect
      .poll(() => sockets.budget.waitingCount > 0 || waiting.frames.length > 1, POLL)
      .toBe(true)
    expect(waiting.frames).toEqual([{ type: 'ready', id: waitingId }])
    // What all sockets held never passed the budget by more than a read per socket.
    expect(sockets.budget.peakBytes).toBeLessThanOrEqual(LIMIT + 2 * 64 * KiB)

    await holder.write(holderBody.subarray(frame / 2))
    await holder.write(textFrame(JSON.stringify({ type: 'finalize' })))
    await holder.until(() => holder.frames.texts.length > 1 || holder.ended)
    expect(JSON.parse(holder.frames.texts[1]!)).toMatchObject({ type: 'done', id: holderId })
    expect(await waiting.waitFor('done')).toMatchObject({ id: waitingId })
    expect(sockets.budget.peakBytes).toBeLessThanOrEqual(LIMIT + 2 * 64 * KiB)
    expect((await download(server, holderId, holderHeaders.authToken!)).equals(holderBody)).toBe(
      true,
    )
    expect((await download(server, waitingId, waitingHeaders.authToken!)).equals(waitingBody)).toBe(
      true,
    )
  }, 30_000)
})
