/**
 * The client core's file shares against the real server: both transports and the fallback
 * between them, passwords and their lockout, download limits, tampering, cancellation and the
 * speed limit.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import {
  ApiError,
  deleteFile,
  downloadFile,
  encryptedSize,
  inspectFile,
  parseLink,
  ProtocolError,
  sendFile,
  unlockFile,
  type ApiClient,
  type FileLink,
  type PayloadSource,
  type ProgressFetch,
  type SendFileOptions,
  type UploadProgress,
} from '@fileshare/protocol'
import { freePort } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'

import { manualClock, startTestServer, type ManualClock, type TestServer } from './harness.js'
import {
  apiFor,
  drain,
  expectNoBlobs,
  loggingFetch,
  MiB,
  randomSource,
  singleFile,
  wsFactory,
} from './client-support.js'

function fileLink(link: string): FileLink {
  const parsed = parseLink(link).link
  if (parsed.kind !== 'file') throw new Error(`not a file link: ${link}`)
  return parsed
}

function options(size: number, extra: Partial<SendFileOptions> = {}): SendFileOptions {
  return {
    expireSec: 86_400,
    maxDownloads: 5,
    metadata: singleFile('data.bin', size),
    fileCount: 1,
    ...extra,
  }
}

/** Sends, opens and downloads; checks every byte and the metadata on the way. */
async function roundTrip(api: ApiClient, size: number, extra: Partial<SendFileOptions> = {}) {
  const { bytes, source } = randomSource(size)
  const progress: UploadProgress[] = []
  const sent = await sendFile(
    api,
    source,
    options(size, { ...extra, onProgress: (p) => progress.push(p) }),
  )
  expect(progress.at(-1)).toEqual({
    sentBytes: encryptedSize(size),
    totalBytes: encryptedSize(size),
    transport: sent.transport,
  })
  for (let i = 1; i < progress.length; i++) {
    expect(progress[i]!.sentBytes).toBeGreaterThanOrEqual(progress[i - 1]!.sentBytes)
  }
  const parsed = parseLink(sent.link)
  expect(parsed.baseUrl).toBe(api.baseUrl)
  const link = fileLink(sent.link)
  const info = await inspectFile(api, link)
  expect(info).toMatchObject({ id: sent.id, size: encryptedSize(size), downloadCount: 0 })
  expect(info.expiresAt).toBe(sent.expiresAt)
  const unlocked = await unlockFile(api, link, info, extra.password)
  expect(unlocked.metadata).toEqual(singleFile('data.bin', size))
  const received: number[] = []
  const download = await downloadFile(api, unlocked, {
    onProgress: (p) => received.push(p.receivedBytes),
  })
  expect(download.plainSize).toBe(size)
  expect(download.fileCount).toBe(1)
  expect((await drain(download.stream)).equals(Buffer.from(bytes))).toBe(true)
  expect(received.at(-1)).toBe(encryptedSize(size))
  return { sent, link, progress: progress.map((p) => p.sentBytes) }
}

// Argon2id takes up to a second per derivation on a busy two-core machine.
describe('file shares through the client core', { timeout: 30_000 }, () => {
  let server: TestServer
  let httpOnly: TestServer

  beforeAll(async () => {
    // 1 MiB chunks, so that chunked uploads of a few MiB have several chunks in flight.
    server = await startTestServer({
      env: { FILE_CHUNK_MAX_SIZE: String(MiB), PASSWORD_MAX_ATTEMPTS: '2' },
    })
    httpOnly = await startTestServer({ env: { FILE_UPLOAD_WS: 'false' } })
  })
  afterAll(async () => {
    await server.close()
    await httpOnly.close()
  })

  describe('round trips', () => {
    it('send, inspect, unlock, download and delete over the WebSocket', async () => {
      const api = apiFor(server, { webSocket: wsFactory() })
      const { sent, link } = await roundTrip(api, 5 * MiB + 123)
      expect(sent.transport).toBe('ws')
      expect(sent.maxDownloads).toBe(5)
      await deleteFile(api, sent.id, sent.ownerToken)
      await expect(inspectFile(api, link)).rejects.toMatchObject({
        status: 404,
        message: 'Upload not found',
      })
    })

    it('send and download over chunked HTTP when the client has no socket factory', async () => {
      const log = loggingFetch()
      const api = apiFor(server, { fetch: log.fetch })
      const { sent, progress } = await roundTrip(api, 3 * MiB + 5)
      expect(sent.transport).toBe('chunks')
      // Without a progressFetch, progress moves by whole chunks, as their answers arrive; the
      // short last chunk may be answered before earlier ones, which the server holds at once.
      const last = encryptedSize(3 * MiB + 5) % MiB
      expect(progress.every((bytes) => bytes % MiB === 0 || bytes % MiB === last)).toBe(true)
      const chunks = log.calls.filter((c) => c.url.includes(`/api/upload/${sent.id}/chunk`))
      expect(chunks.map((c) => new URL(c.url).searchParams.get('index'))).toEqual([
        '0',
        '1',
        '2',
        '3',
      ])
    })

    it('counts the bytes of chunks still in flight when the client has a progressFetch', async () => {
      const sentVia: string[] = []
      const progressFetch: ProgressFetch = async (url, init, onSent) => {
        sentVia.push(new URL(url).pathname)
        const length = (init.body as Uint8Array).length
        onSent(Math.floor(length / 2))
        const response = await fetch(url, init)
        onSent(length)
        return response
      }
      const { sent, progress } = await roundTrip(apiFor(server, { progressFetch }), 3 * MiB + 5)
      expect(sent.transport).toBe('chunks')
      // Half of the first chunk shows before any chunk was answered.
      expect(progress).toContain(MiB / 2)
      // Only the chunks, the requests that ask for it, go through the progressFetch.
      expect(sentVia).toHaveLength(4)
      expect(sentVia.every((path) => path === `/api/upload/${sent.id}/chunk`)).toBe(true)
    })

    it('uses chunked HTTP at once when the server has the socket switched off', async () => {
      const { sent } = await roundTrip(apiFor(httpOnly, { webSocket: wsFactory() }), 2 * MiB)
      expect(sent.transport).toBe('chunks')
    })

    it('round-trips an empty payload on both transports', async () => {
      expect((await roundTrip(apiFor(server, { webSocket: wsFactory() }), 0)).sent.transport).toBe(
        'ws',
      )
      expect((await roundTrip(apiFor(server), 0)).sent.transport).toBe('chunks')
    })
  })

  describe('fallback to chunked HTTP', () => {
    it('falls back when the socket connection is refused', async () => {
      const port = await freePort()
      const api = apiFor(server, { webSocket: () => wsFactory()(`ws://127.0.0.1:${port}/`) })
      expect((await roundTrip(api, MiB)).sent.transport).toBe('chunks')
    })

    it('falls back when the server refuses the Origin of the upgrade', async () => {
      const api = apiFor(server, {
        webSocket: wsFactory({ headers: { Origin: 'https://elsewhere.example' } }),
      })
      expect((await roundTrip(api, MiB)).sent.transport).toBe('chunks')
    })

    it('falls back on an error frame without a status, and on a socket without ready', async () => {
      // A peer that refuses every init without a status, then one that never answers at all.
      const refusing = new WebSocketServer({ port: 0, host: '127.0.0.1' })
      refusing.on('connection', (ws) =>
        ws.on('message', () => {
          ws.send(JSON.stringify({ type: 'error', message: 'Internal server error' }))
          ws.close(1011)
        }),
      )
      const silent = new WebSocketServer({ port: 0, host: '127.0.0.1' })
      await Promise.all(
        [refusing, silent].map((peer) => new Promise((resolve) => peer.once('listening', resolve))),
      )
      try {
        for (const peer of [refusing, silent]) {
          const { port } = peer.address() as { port: number }
          const api = apiFor(server, { webSocket: () => wsFactory()(`ws://127.0.0.1:${port}/`) })
          const started = Date.now()
          expect((await roundTrip(api, 100_000)).sent.transport).toBe('chunks')
          // Only the silent peer makes the client wait for the 10 s handshake timeout.
          if (peer === silent) expect(Date.now() - started).toBeGreaterThanOrEqual(9_900)
        }
      } finally {
        for (const peer of [refusing, silent]) {
          for (const ws of peer.clients) ws.terminate()
          await new Promise((resolve) => peer.close(resolve))
        }
      }
    }, 30_000)

    it('does not fall back when the socket closes normally before ready', async () => {
      // Only the spec's causes fall back; a peer that ends the upload cleanly has answered.
      const peer = new WebSocketServer({ port: 0, host: '127.0.0.1' })
      await new Promise((resolve) => peer.once('listening', resolve))
      peer.on('connection', (ws) => ws.close(1000))
      try {
        const log = loggingFetch()
        const { port } = peer.address() as { port: number }
        const api = apiFor(server, {
          fetch: log.fetch,
          webSocket: () => wsFactory()(`ws://127.0.0.1:${port}/`),
        })
        const { source } = randomSource(1000)
        await expect(sendFile(api, source, options(1000))).rejects.toMatchObject({
          code: 'NETWORK',
        })
        expect(log.calls.some((c) => c.url.includes('/api/upload/init'))).toBe(false)
      } finally {
        await new Promise((resolve) => peer.close(resolve))
      }
    })

    it('falls back on a 4xx error frame answering init; the HTTP init refuses with details', async () => {
      // Spec: an error frame answering init is a cause to fall back, whatever its status.
      const log = loggingFetch()
      const api = apiFor(server, { webSocket: wsFactory(), fetch: log.fetch })
      const { source } = randomSource(1000)
      const refused = sendFile(api, source, options(1000, { maxDownloads: 7 }))
      await expect(refused).rejects.toBeInstanceOf(ApiError)
      await expect(refused).rejects.toMatchObject({
        status: 400,
        message: 'Invalid request',
        details: { 'x-max-downloads': expect.any(String) },
      })
      expect(log.calls.filter((c) => c.url.includes('/api/upload/init'))).toHaveLength(1)
    })
  })

  describe('passwords', () => {
    it('round-trips a password-protected file on both transports', async () => {
      for (const api of [apiFor(server, { webSocket: wsFactory() }), apiFor(server)]) {
        const { link } = await roundTrip(api, 300_000, { password: 'correct horse' })
        expect(link.hasPassword).toBe(true)
      }
    })

    it('opens the names of a protected file only through the password check', async () => {
      // Security: the public info of a protected file holds no ciphertext to test guesses offline.
      const log = loggingFetch()
      const api = apiFor(server, { fetch: log.fetch })
      const { source } = randomSource(10)
      const sent = await sendFile(api, source, options(10, { password: 'right' }))
      const link = fileLink(sent.link)
      const info = await inspectFile(api, link)
      expect(info.hasPassword).toBe(true)
      expect(info).not.toHaveProperty('encryptedMeta')
      expect(info).not.toHaveProperty('nonce')
      log.calls.length = 0
      const unlocked = await unlockFile(api, link, info, 'right')
      expect(unlocked.metadata).toEqual(singleFile('data.bin', 10))
      expect(log.calls.map((call) => `${call.method} ${new URL(call.url).pathname}`)).toEqual([
        `POST /api/password/${sent.id}`,
      ])
    })

    it('reports a wrong or missing password as WRONG_PASSWORD, then the lockout as 429', async () => {
      // Security: a wrong password never yields content, and guessing is cut off by the lockout.
      const api = apiFor(server)
      const { source } = randomSource(10)
      const sent = await sendFile(api, source, options(10, { password: 'right' }))
      const link = fileLink(sent.link)
      const info = await inspectFile(api, link)
      expect(info.hasPassword).toBe(true)
      await expect(unlockFile(api, link, info)).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
      for (let attempt = 0; attempt < 2; attempt++) {
        const wrong = unlockFile(api, link, info, 'wrong')
        await expect(wrong).rejects.toBeInstanceOf(ProtocolError)
        await expect(wrong).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
      }
      const locked = unlockFile(api, link, info, 'right')
      await expect(locked).rejects.toBeInstanceOf(ApiError)
      const error = (await locked.catch((e: unknown) => e)) as ApiError
      expect(error.status).toBe(429)
      expect(error.message).toBe('Too many failed attempts, try again later')
      expect(error.retryAfterSec).toBeGreaterThan(0)
    })
  })

  describe('downloads', () => {
    it('answers 410 once the download limit is used up', async () => {
      const api = apiFor(server)
      const { source } = randomSource(1000)
      const sent = await sendFile(api, source, options(1000, { maxDownloads: 1 }))
      const link = fileLink(sent.link)
      const unlocked = await unlockFile(api, link, await inspectFile(api, link))
      await drain((await downloadFile(api, unlocked)).stream)
      const again = downloadFile(api, unlocked)
      await expect(again).rejects.toBeInstanceOf(ApiError)
      await expect(again).rejects.toMatchObject({
        status: 410,
        message: 'Upload expired or download limit reached',
      })
    })

    it('fails the plaintext stream with DECRYPT_FAILED when a stored byte was changed', async () => {
      // Security: the server (or its disk) cannot alter a byte without the client noticing.
      const api = apiFor(server)
      const { source } = randomSource(3 * MiB)
      const sent = await sendFile(api, source, options(3 * MiB))
      const path = join(server.dataDir, 'blobs', sent.id)
      const blob = await readFile(path)
      blob[2 * MiB + 77]! ^= 0x01
      await writeFile(path, blob)
      const link = fileLink(sent.link)
      const unlocked = await unlockFile(api, link, await inspectFile(api, link))
      const download = await downloadFile(api, unlocked)
      const failure = drain(download.stream)
      await expect(failure).rejects.toBeInstanceOf(ProtocolError)
      await expect(failure).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    })

    it('refuses to open a file with a key that is not the link’s', async () => {
      // Security: a link whose key was altered derives other tokens, which the server refuses.
      const api = apiFor(server)
      const { source } = randomSource(100)
      const sent = await sendFile(api, source, options(100))
      const link = fileLink(sent.link)
      const forged = { ...link, secret: link.secret.map((b, i) => (i === 0 ? b ^ 1 : b)) }
      const info = await inspectFile(api, forged)
      await expect(unlockFile(api, forged, info)).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    })

    it('reports an unreachable server as NETWORK', async () => {
      const api = apiFor(server)
      const { source } = randomSource(100)
      const link = fileLink((await sendFile(api, source, options(100))).link)
      const offline = apiFor({ url: `http://127.0.0.1:${await freePort()}` } as TestServer)
      await expect(inspectFile(offline, link)).rejects.toMatchObject({ code: 'NETWORK' })
    })
  })
})

describe('cancelled and refused uploads leave nothing on the server', { timeout: 30_000 }, () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_CHUNK_MAX_SIZE: String(MiB) } })
  })
  afterAll(() => server.close())

  for (const transport of ['ws', 'chunks'] as const) {
    it(`aborts an upload under way over ${transport}`, async () => {
      const api = apiFor(server, transport === 'ws' ? { webSocket: wsFactory() } : {})
      const { source } = randomSource(16 * MiB)
      const controller = new AbortController()
      const seen: UploadProgress[] = []
      const upload = sendFile(
        api,
        source,
        options(16 * MiB, {
          signal: controller.signal,
          onProgress: (p) => {
            seen.push(p)
            if (p.sentBytes >= MiB) controller.abort()
          },
        }),
      )
      await expect(upload).rejects.toMatchObject({ name: 'AbortError' })
      expect(seen.at(-1)!.transport).toBe(transport)
      expect(seen.at(-1)!.sentBytes).toBeLessThan(encryptedSize(16 * MiB))
      await expectNoBlobs(server)
    })
  }

  it('aborts an upload whose source has stalled, on both transports', async () => {
    for (const api of [apiFor(server, { webSocket: wsFactory() }), apiFor(server)]) {
      const controller = new AbortController()
      const stalled: PayloadSource = {
        size: MiB,
        stream: () => {
          setTimeout(() => controller.abort(), 300)
          return new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) })
        },
      }
      await expect(
        sendFile(api, stalled, options(MiB, { signal: controller.signal })),
      ).rejects.toMatchObject({ name: 'AbortError' })
      await expectNoBlobs(server)
    }
  })

  it('refuses a source that yields another size than it declared, storing nothing', async () => {
    for (const api of [apiFor(server, { webSocket: wsFactory() }), apiFor(server)]) {
      const { source } = randomSource(2 * MiB)
      const lying: PayloadSource = { size: 3 * MiB, stream: () => source.stream() }
      const failure = sendFile(api, lying, options(3 * MiB))
      await expect(failure).rejects.toMatchObject({ code: 'BAD_INPUT' })
      await expectNoBlobs(server)
    }
  })

  it('does not start at all with a signal aborted beforehand', async () => {
    const log = loggingFetch()
    const api = apiFor(server, { fetch: log.fetch })
    const { source } = randomSource(100)
    const signal = AbortSignal.abort()
    await expect(sendFile(api, source, options(100, { signal }))).rejects.toMatchObject({
      name: 'AbortError',
    })
    expect(log.calls.filter((c) => c.method === 'POST')).toEqual([])
    // On PostgreSQL earlier chunked uploads made `.chunks`, which they left empty.
    const blobs = join(server.dataDir, 'blobs')
    expect((await readdir(blobs)).filter((name) => name !== '.chunks')).toEqual(['.partial'])
    expect(await readdir(join(blobs, '.chunks')).catch(() => [])).toEqual([])
  })
})

describe('speed limit', { timeout: 30_000 }, () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_SPEED_LIMIT: '2000000' } })
  })
  afterAll(() => server.close())

  for (const transport of ['ws', 'chunks'] as const) {
    it(`keeps an upload over ${transport} to the published rate`, async () => {
      const api = apiFor(server, transport === 'ws' ? { webSocket: wsFactory() } : {})
      expect((await api.config()).uploadSpeedLimit).toBe(2_000_000)
      const { source } = randomSource(3_000_000)
      const started = Date.now()
      const sent = await sendFile(api, source, options(3_000_000))
      expect(sent.transport).toBe(transport)
      // 3 MB at 2 MB/s: one and a half seconds at the least, however fast the machine is.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    })
  }
})

describe('chunked uploads answered 429', { timeout: 30_000 }, () => {
  /**
   * A fetch that counts the 429 answers to chunk requests, per index. Finalize is not repeated
   * on any answer, so it is held back until the rate limit's window has passed.
   */
  /**
   * Fetch that counts the chunks the rate limit refused. The server's clock stands still, so the
   * window fills whatever the machine's speed; each refusal, and the finalize, move it past the
   * whole window (two lengths: the window's slots overlap its length by one), so that the chunk
   * sent again after Retry-After finds it empty.
   */
  function countingRefusals(clock: ManualClock, windowMs: number) {
    const refused: string[] = []
    const counted: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      if (url.pathname.endsWith('/finalize')) clock.advance(2 * windowMs)
      const res = await fetch(input, init)
      if (res.status === 429 && url.pathname.endsWith('/chunk')) {
        refused.push(url.searchParams.get('index') ?? '')
        clock.advance(2 * windowMs)
      }
      return res
    }
    return { refused, fetch: counted }
  }

  async function expectStored(api: ApiClient, link: string, bytes: Uint8Array): Promise<void> {
    const parsed = fileLink(link)
    const unlocked = await unlockFile(api, parsed, await inspectFile(api, parsed))
    const download = await downloadFile(api, unlocked)
    expect((await drain(download.stream)).equals(Buffer.from(bytes))).toBe(true)
  }

  it('waits out the Retry-After of the rate limit and sends the refused chunk again', async () => {
    const clock = manualClock()
    const server = await startTestServer({
      clock,
      env: { RATE_LIMIT_MAX: '6', RATE_LIMIT_WINDOW: '1000', FILE_CHUNK_MAX_SIZE: '256KB' },
    })
    try {
      const counting = countingRefusals(clock, 1000)
      const api = apiFor(server, { fetch: counting.fetch })
      const { bytes, source } = randomSource(2 * MiB)
      const sent = await sendFile(api, source, options(2 * MiB))
      expect(sent.transport).toBe('chunks')
      expect(counting.refused.length).toBeGreaterThan(0)
      clock.advance(2000)
      await expectStored(api, sent.link, bytes)
    } finally {
      await server.close()
    }
  })

  it('sends early chunks again once they are due when the buffer budget has no room', async () => {
    const server = await startTestServer({
      env: { FILE_UPLOAD_CHUNK_BUFFER: '0', FILE_CHUNK_MAX_SIZE: '256KB' },
    })
    try {
      const api = apiFor(server)
      const { bytes, source } = randomSource(2 * MiB)
      const sent = await sendFile(api, source, options(2 * MiB))
      expect(sent.transport).toBe('chunks')
      await expectStored(api, sent.link, bytes)
    } finally {
      await server.close()
    }
  })
})
