/**
 * Two instances on one PostgreSQL database and one DATA_DIR, in one process: what an instance
 * does at its start and in its cleanup leaves the chunked sessions of the other alone (their
 * request slots and the chunks they stored), since those sessions live in the database; those
 * whose clients did not ask to resume end with the instance that took their init.
 */
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { readdir, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'

import { describe, expect, it, vi } from 'vitest'

import { PARTIAL_MARGIN_MS } from '../src/ops/cleanup.js'
import type { ChunkFeed } from '../src/sessions/chunk-feed.js'
import { HOLD_LAPSE_MS } from '../src/sessions/session-records.js'
import type { ChunkBody } from '../src/storage/blob-store.js'
import { manualClock, startTestServer, type TestServer } from './harness.js'
import {
  ENV,
  HOUR,
  chunk,
  createRequest,
  downloadFile,
  finalize,
  finalizeBody,
  init,
  initOk,
  readRequest,
} from './requests.suite.js'

/** Makes every file under `dir` look as old as `ageMs`. */
async function age(dir: string, ageMs: number): Promise<number> {
  const names = await readdir(dir).catch(() => [])
  const at = (Date.now() - ageMs) / 1000
  for (const name of names) await utimes(join(dir, name), at, at)
  return names.length
}

describe('chunked sessions of one instance, seen from another', () => {
  it('keep their request slot when another instance starts, and its cleanup leaves them alone', async () => {
    const a = await startTestServer({ env: ENV })
    let b: TestServer | undefined
    try {
      const req = await createRequest(a, { maxUploads: 1 })
      const data = randomBytes(30)
      const uid = await initOk(a, req, data.length)
      expect((await chunk(a, req, uid, 0, data.subarray(0, 20))).status).toBe(200)

      b = await startTestServer({ env: ENV, dataDir: a.dataDir })
      // Property: starting an instance frees no slot that a live session of another one holds.
      expect((await readRequest(b, req)).body.uploadsLeft).toBe(0)
      expect((await init(b, req, 10)).status).toBe(409)

      // Older than the sweeps' age, as a long upload's first bytes are.
      const blobs = join(a.dataDir, 'blobs')
      const sweepAge = Number(ENV.UPLOAD_SESSION_IDLE_SEC) * 1000 + PARTIAL_MARGIN_MS + HOUR
      const written =
        (await age(join(blobs, '.chunks'), sweepAge)) +
        (await age(join(blobs, '.partial'), sweepAge))
      expect(written).toBeGreaterThan(0)
      const report = await b.service.cleanup.runOnce()
      expect(report.leading).toBe(true)
      expect(report.failedSteps).toEqual([])
      // Property: the sweep by age removed nothing of the live session of the other instance.
      expect(report.partialsRemoved).toBe(0)

      expect((await chunk(a, req, uid, 1, data.subarray(20))).status).toBe(200)
      expect((await finalize(b, req, uid, finalizeBody())).status).toBe(200)
      expect((await downloadFile(a, req, uid)).bytes.equals(data)).toBe(true)
    } finally {
      await b?.close({ keepData: true })
      await a.close()
    }
  })
})

// Spec: Upload slot inside a request, "server restart" frees a reserved slot. Ours: a client may
// ask to resume (X-Resumable), and only its session outlives the instance that took its init.
describe('chunked sessions whose clients did not ask to resume', () => {
  const RESUMABLE = { 'X-Resumable': 'true' }

  /** `plain` ended, its slot free (two of three), while `kept` takes its last chunk and finishes. */
  async function expectOnlyKeptGoesOn(
    server: TestServer,
    req: Awaited<ReturnType<typeof createRequest>>,
    plain: string,
    kept: string,
  ): Promise<void> {
    expect((await readRequest(server, req)).body.uploadsLeft).toBe(2)
    expect((await chunk(server, req, plain, 1, randomBytes(10))).status).toBe(404)
    expect((await chunk(server, req, kept, 1, randomBytes(10))).status).toBe(200)
    expect((await finalize(server, req, kept, finalizeBody())).status).toBe(200)
  }

  it('end when the instance that took their init stops', async () => {
    const a = await startTestServer({ env: ENV })
    let b: TestServer | undefined
    try {
      const req = await createRequest(a, { maxUploads: 3 })
      const plain = await initOk(a, req, 30)
      const kept = await initOk(a, req, 30, RESUMABLE)
      b = await startTestServer({ env: ENV, dataDir: a.dataDir })
      for (const uid of [plain, kept]) {
        expect((await chunk(b, req, uid, 0, randomBytes(20))).status).toBe(200)
      }
      expect((await readRequest(b, req)).body.uploadsLeft).toBe(1)
      await a.close({ keepData: true })
      await expectOnlyKeptGoesOn(b, req, plain, kept)
    } finally {
      await b?.close({ keepData: true })
      await a.close()
    }
  })

  it('end once the hold of their killed instance lapses, at another instance’s cleanup', async () => {
    const a = await startTestServer({ env: ENV })
    const clock = manualClock()
    let b: TestServer | undefined
    try {
      const req = await createRequest(a, { maxUploads: 3 })
      const plain = await initOk(a, req, 30)
      const kept = await initOk(a, req, 30, RESUMABLE)
      for (const uid of [plain, kept]) {
        expect((await chunk(a, req, uid, 0, randomBytes(20))).status).toBe(200)
      }
      // As after a kill: nothing of A ends its sessions, and its heartbeat stops.
      a.service.services.chunkSessions!.endHeld = () => Promise.resolve()
      await a.close({ keepData: true })
      b = await startTestServer({ env: ENV, dataDir: a.dataDir, clock })
      // A's hold is fresh: it may be alive, so B takes nothing from it.
      expect((await b.service.cleanup.runOnce()).leading).toBe(true)
      expect((await readRequest(b, req)).body.uploadsLeft).toBe(1)

      clock.advance(HOLD_LAPSE_MS + 1000)
      const report = await b.service.cleanup.runOnce()
      expect(report.failedSteps).toEqual([])
      expect(report.sessionsExpired).toBe(1)
      await expectOnlyKeptGoesOn(b, req, plain, kept)
    } finally {
      await b?.close({ keepData: true })
      await a.close()
    }
  })
})

describe('a chunk whose request ends before the store reads its body', () => {
  it('fails that chunk alone and leaves the instance serving', async () => {
    // Security: a client that drops its connection early must not end the server's process.
    const a = await startTestServer({ env: ENV })
    try {
      const req = await createRequest(a, { maxUploads: 1 })
      const data = randomBytes(64)
      const uid = await initOk(a, req, data.length)
      const blobs = a.service.blobs
      const putChunk = blobs.putChunk.bind(blobs)
      let opened!: () => void
      const gate = new Promise<void>((resolve) => (opened = resolve))
      let body: ChunkBody | undefined
      // The store is slow to begin: it has not read the body when the request goes away.
      blobs.putChunk = async (...args) => {
        body = args[2]
        await gate
        return putChunk(...args)
      }
      const url = new URL(`${a.url}/api/request/${req.id}/upload/${uid}/chunk?index=0`)
      const sent = request(url, {
        method: 'POST',
        headers: { 'Content-Length': String(data.length) },
      })
      sent.on('error', () => undefined)
      sent.write(data.subarray(0, 10))
      await vi.waitFor(() => expect(body).toBeDefined())
      sent.destroy()
      // The feed of the body is failed, so the store's read of it fails when it begins.
      await vi.waitFor(() => expect((body as ChunkFeed).destroyed).toBe(true))
      opened()
      blobs.putChunk = putChunk

      // The chunk left nothing behind: its retry is taken whole.
      await vi.waitFor(async () => expect((await chunk(a, req, uid, 0, data)).status).toBe(200))
    } finally {
      await a.close()
    }
  })
})

describe('chunks of the size the server asks for, on the filesystem', () => {
  it('lie in their session file, which finalize renames into the blob without a copy', async () => {
    // The server asks for chunks of FILE_CHUNK_MAX_SIZE when that is under 10 MB.
    const a = await startTestServer({ env: { ...ENV, FILE_CHUNK_MAX_SIZE: '20' } })
    try {
      const req = await createRequest(a, { maxUploads: 1 })
      const data = randomBytes(50)
      const uid = await initOk(a, req, data.length)
      const chunks = join(a.dataDir, 'blobs', '.chunks')
      for (const index of [2, 0, 1]) {
        const body = data.subarray(index * 20, index * 20 + 20)
        expect((await chunk(a, req, uid, index, body)).status).toBe(200)
      }
      expect(await readdir(chunks)).toEqual([`${uid}.inplace`])
      const { ino } = await stat(join(chunks, `${uid}.inplace`))
      expect((await finalize(a, req, uid, finalizeBody())).status).toBe(200)
      expect(await readdir(chunks)).toEqual([])
      expect((await stat(join(a.dataDir, 'blobs', uid))).ino).toBe(ino)
      expect((await downloadFile(a, req, uid)).bytes.equals(data)).toBe(true)
    } finally {
      await a.close()
    }
  })
})
