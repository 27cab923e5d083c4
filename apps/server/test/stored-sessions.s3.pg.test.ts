/**
 * Chunked sessions kept in PostgreSQL on S3 (radosgw), with two instances on one database and
 * one bucket: a chunk of 5 MiB or more goes straight into the multipart upload of its blob, made
 * when the session opens, and finalize completes that upload wherever it arrives; a smaller chunk
 * is an object of its own, joined in. Whatever ends a session leaves neither its multipart upload
 * nor its chunk objects behind.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import type { UploadStatusResponse } from '@fileshare/protocol'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import type { S3BlobStore } from '../src/storage/s3.js'
import { followDownload } from './backends.js'
import { TEST_DIALECT } from './dialects.js'
import { manualClock, startTestServer, type ManualClock, type TestServer } from './harness.js'
import {
  chunk as requestChunk,
  createRequest,
  ENV,
  finalize as finalizeRequestUpload,
  finalizeBody,
  initOk,
} from './requests.suite.js'
import { countCommands, openMultipartKeys, s3Env, testRadosgw } from './s3-backend.js'
import { initChunked, MiB, sendChunk } from './uploads.suite.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

/** Random chunks of the sizes given. */
const chunksOf = (sizes: readonly number[]): Buffer<ArrayBuffer>[] =>
  sizes.map((size) => randomBytes(size) as Buffer<ArrayBuffer>)

describe.skipIf(missing !== null || TEST_DIALECT !== 'postgres')(
  'chunked sessions on PostgreSQL and S3',
  { timeout: 60_000 },
  () => {
    let gateway: Radosgw | undefined
    const running: TestServer[] = []

    beforeAll(async () => {
      gateway = testRadosgw()
    }, 90_000)
    afterAll(() => gateway?.stop())
    afterEach(async () => {
      // The first server owns the data folder (and so the database): it closes last.
      const servers = running.splice(0)
      for (const server of [...servers].reverse()) {
        await server.close({ keepData: server !== servers[0] })
      }
    })

    /** Two instances on one database and one bucket, on `clock` when one is given. */
    async function twoInstances(clock?: ManualClock): Promise<[TestServer, TestServer]> {
      const env = { ...ENV, ...s3Env(gateway!) }
      const a = await startTestServer({ env, ...(clock ? { clock } : {}) })
      running.push(a)
      const b = await startTestServer({ env, dataDir: a.dataDir, ...(clock ? { clock } : {}) })
      running.push(b)
      return [a, b]
    }

    const storeOf = (server: TestServer) => server.service.blobs as S3BlobStore

    /** Multipart uploads and chunk objects of session `id` left in the bucket. */
    async function leftOf(server: TestServer, id: string) {
      const names = await openMultipartKeys(storeOf(server))
      return {
        uploads: names.filter((name) => name === id),
        chunkObjects: names.filter((name) => name.startsWith(`chunks/${id}.`)),
      }
    }

    async function finalize(server: TestServer, id: string, ownerToken: string) {
      return fetch(`${server.url}/api/upload/${id}/finalize`, {
        method: 'POST',
        headers: { 'X-Owner-Token': ownerToken },
      })
    }

    async function downloaded(server: TestServer, id: string, authToken: string) {
      const res = await followDownload(
        server,
        await fetch(`${server.url}/api/download/${id}`, { headers: { 'X-Auth-Token': authToken } }),
      )
      expect(res.status).toBe(200)
      return Buffer.from(await res.arrayBuffer())
    }

    /** Sends `chunks` in the order of `indexes`, alternating between the two instances. */
    async function sendAll(
      servers: readonly TestServer[],
      id: string,
      chunks: readonly Buffer<ArrayBuffer>[],
      indexes: readonly number[],
    ) {
      for (const [turn, index] of indexes.entries()) {
        const res = await sendChunk(servers[turn % servers.length]!, id, index, chunks[index]!)
        expect(res.status, await res.clone().text()).toBe(200)
      }
    }

    it('sends large chunks arriving out of order at two instances into the upload, copying none at finalize', async () => {
      const [a, b] = await twoInstances()
      const chunks = chunksOf([6 * MiB, 6 * MiB, 5 * MiB, 6 * MiB + 11])
      const body = Buffer.concat(chunks)
      const up = await initChunked(a, body.length)
      await sendAll([b, a], up.id, chunks, [1, 0, 3, 2])
      // No chunk is an object of its own: all are parts of the one upload made at init.
      expect(await leftOf(a, up.id)).toEqual({ uploads: [up.id], chunkObjects: [] })
      const counted = countCommands(storeOf(b))
      try {
        expect((await finalize(b, up.id, up.ownerToken)).status).toBe(200)
        // Property: finalize completes the upload and neither copies nor reads a byte.
        expect(Object.fromEntries(counted.counts)).toEqual({ CompleteMultipartUploadCommand: 1 })
      } finally {
        counted.undo()
      }
      expect((await downloaded(a, up.id, up.authToken)).equals(body)).toBe(true)
      expect(await leftOf(a, up.id)).toEqual({ uploads: [], chunkObjects: [] })
    })

    it.each([
      ['a small last chunk', [6 * MiB, 6 * MiB, 1 * MiB + 5], [2, 0, 1]],
      [
        'small chunks in the middle',
        [6 * MiB, 1 * MiB, 2 * MiB + 7, 6 * MiB, 300 * 1024],
        [0, 2, 1, 4, 3],
      ],
    ])(
      'keeps only the chunks under 5 MiB apart with %s, and joins byte-exact',
      async (_, sizes, order) => {
        const [a, b] = await twoInstances()
        const chunks = chunksOf(sizes)
        const body = Buffer.concat(chunks)
        const up = await initChunked(b, body.length)
        await sendAll([a, b], up.id, chunks, order)
        const left = await leftOf(a, up.id)
        expect(left.uploads).toEqual([up.id])
        const small = sizes.filter((size) => size < 5 * MiB).length
        expect(left.chunkObjects).toHaveLength(small)
        expect((await finalize(a, up.id, up.ownerToken)).status).toBe(200)
        expect((await downloaded(b, up.id, up.authToken)).equals(body)).toBe(true)
        expect(await leftOf(a, up.id)).toEqual({ uploads: [], chunkObjects: [] })
      },
    )

    it('takes the same large chunk at both instances at once once, and joins byte-exact', async () => {
      const [a, b] = await twoInstances()
      const chunks = chunksOf([6 * MiB, 6 * MiB])
      const body = Buffer.concat(chunks)
      const up = await initChunked(a, body.length)
      await sendAll([a], up.id, chunks, [0])
      const racing = await Promise.all([a, b].map((s) => sendChunk(s, up.id, 1, chunks[1]!)))
      expect(racing.map((res) => res.status).sort()).toEqual([200, 400])
      // Both attempts went to part 2 of the upload; the one not recorded left nothing apart.
      expect(await leftOf(a, up.id)).toEqual({ uploads: [up.id], chunkObjects: [] })
      expect((await finalize(b, up.id, up.ownerToken)).status).toBe(200)
      expect((await downloaded(a, up.id, up.authToken)).equals(body)).toBe(true)
    })

    it('resumes from nextIndex at the other instance, the parts recorded being durable', async () => {
      const [a, b] = await twoInstances()
      const chunks = chunksOf([6 * MiB, 6 * MiB, 6 * MiB, 2 * MiB])
      const body = Buffer.concat(chunks)
      const up = await initChunked(a, body.length)
      await sendAll([a], up.id, chunks, [0, 1])
      const status = await fetch(`${b.url}/api/upload/${up.id}/status`, {
        headers: { 'X-Owner-Token': up.ownerToken },
      })
      const { nextIndex, bytesWritten } = (await status.json()) as UploadStatusResponse
      expect({ nextIndex, bytesWritten }).toEqual({ nextIndex: 2, bytesWritten: 12 * MiB })
      expect(await leftOf(b, up.id)).toEqual({ uploads: [up.id], chunkObjects: [] })
      await sendAll([b], up.id, chunks, [2, 3])
      expect((await finalize(b, up.id, up.ownerToken)).status).toBe(200)
      expect((await downloaded(a, up.id, up.authToken)).equals(body)).toBe(true)
    })

    it('sweeps by age the upload and chunks no session holds, and spares those of a live one', async () => {
      const [a, b] = await twoInstances()
      const chunks = chunksOf([6 * MiB, 1 * MiB, 6 * MiB])
      const body = Buffer.concat(chunks)
      const up = await initChunked(a, body.length)
      await sendAll([a, b], up.id, chunks, [0, 1])
      // What a session whose row is gone left (its instance died while ending it).
      const store = storeOf(b)
      const orphan = randomUUID()
      const orphanUpload = await store.startChunks(orphan, body.length, chunks[0]!.length)
      for (const [index, bytes] of chunks.slice(0, 2).entries()) {
        await store.putChunk(orphan, index, [bytes], bytes.length, orphanUpload)
      }
      expect(await leftOf(a, orphan)).toEqual({
        uploads: [orphan],
        chunkObjects: [expect.any(String)],
      })
      const live = await b.service.services.liveSessionKeys()
      await store.sweepUnfinished(0, live)
      await store.sweepChunks(0, live)
      expect(await leftOf(a, orphan)).toEqual({ uploads: [], chunkObjects: [] })
      // Property: a sweep by age takes nothing of a session any instance still holds.
      expect(await leftOf(a, up.id)).toEqual({
        uploads: [up.id],
        chunkObjects: [expect.any(String)],
      })
      await sendAll([b], up.id, chunks, [2])
      expect((await finalize(a, up.id, up.ownerToken)).status).toBe(200)
      expect((await downloaded(b, up.id, up.authToken)).equals(body)).toBe(true)
    })

    it('aborts the upload and removes the chunk objects of a cancelled session', async () => {
      const [a, b] = await twoInstances()
      const chunks = chunksOf([6 * MiB, 1 * MiB, 6 * MiB])
      const up = await initChunked(a, 20 * MiB)
      await sendAll([a, b], up.id, chunks, [0, 1, 2])
      expect(await leftOf(a, up.id)).toEqual({
        uploads: [up.id],
        chunkObjects: [expect.any(String)],
      })
      const res = await fetch(`${b.url}/api/upload/${up.id}`, {
        method: 'DELETE',
        headers: { 'X-Owner-Token': up.ownerToken },
      })
      expect(res.status).toBe(200)
      expect(await leftOf(a, up.id)).toEqual({ uploads: [], chunkObjects: [] })
    })

    it('aborts the upload and removes the chunk objects of a session gone idle', async () => {
      const clock = manualClock()
      const [a, b] = await twoInstances(clock)
      const chunks = chunksOf([6 * MiB, 1 * MiB])
      const up = await initChunked(b, 20 * MiB)
      await sendAll([b], up.id, chunks, [0, 1])
      expect((await leftOf(a, up.id)).uploads).toEqual([up.id])
      clock.advance(Number(ENV.UPLOAD_SESSION_IDLE_SEC) * 1000 + 1000)
      const report = await a.service.cleanup.runOnce()
      expect(report.failedSteps).toEqual([])
      expect(report.sessionsExpired).toBeGreaterThanOrEqual(1)
      expect(await leftOf(a, up.id)).toEqual({ uploads: [], chunkObjects: [] })
    })

    it('leaves no blob, upload or chunk object when the finalize of an upload into a request fails', async () => {
      const [a, b] = await twoInstances()
      const req = await createRequest(a, { maxUploads: 1, maxSize: 20 * MiB })
      const chunks = chunksOf([6 * MiB, 1 * MiB, 6 * MiB])
      const body = Buffer.concat(chunks)
      const uid = await initOk(a, req, body.length)
      for (const [index, bytes] of chunks.entries()) {
        expect((await requestChunk(index % 2 ? a : b, req, uid, index, bytes)).status).toBe(200)
      }
      // The join fails at its last step, once the parts are completed into the blob.
      const { client } = storeOf(b)
      let completes = 0
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'CompleteMultipartUploadCommand' && ++completes === 2) {
            throw Object.assign(new Error('injected 403'), { $metadata: { httpStatusCode: 403 } })
          }
          return next(args)
        },
        { step: 'initialize', name: 'fail-complete' },
      )
      try {
        const res = await finalizeRequestUpload(b, req, uid, finalizeBody())
        expect(res.status).toBeGreaterThanOrEqual(500)
        expect(completes).toBe(2)
      } finally {
        client.middlewareStack.remove('fail-complete')
      }
      expect(await leftOf(a, uid)).toEqual({ uploads: [], chunkObjects: [] })
      await expect(storeOf(a).read(uid)).rejects.toThrow()
    })
  },
)
