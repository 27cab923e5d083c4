/**
 * Two server processes on one PostgreSQL database, as behind a load balancer: a chunked upload,
 * normal or into a request, whose chunks, status, finalize and retries reach either instance, on
 * S3 (radosgw) and on the filesystem with a shared DATA_DIR, across a SIGKILL and a restart.
 */
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { request } from 'node:http'
import { join } from 'node:path'

import type { UploadStatusResponse } from '@fileshare/protocol'
import type { SpawnedServer } from '@fileshare/testing'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { testPostgres } from './dialects.js'
import { uploadHeaders } from './harness.js'
import {
  chunk as requestChunk,
  createRequest,
  finalize as finalizeRequestUpload,
  finalizeBody,
  init as initRequestUpload,
  initOk,
} from './requests.suite.js'
import { spawnedServers } from './spawned-servers.js'
import { s3Env, testRadosgw } from './s3-backend.js'

const KiB = 1024
const MiB = 1024 * KiB

const s3Missing = await radosgwMissing()
let gateway: Radosgw | undefined
const spawned = spawnedServers('fileshare-cluster-')

afterAll(async () => {
  await gateway?.stop()
})

/** The settings two instances share: one database, one DATA_DIR, and on S3 one bucket. */
async function clusterEnv(backend: 'filesystem' | 's3'): Promise<Record<string, string>> {
  const dataDir = await spawned.dataDir()
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: await (await testPostgres()).createDatabase(),
    LOG_LEVEL: 'error',
    RATE_LIMIT_MAX: '0',
    CLEANUP_INTERVAL: '86400',
    ...(backend === 's3' ? s3Env(gateway!) : {}),
  }
  return env
}

async function startInstance(env: Record<string, string>): Promise<SpawnedServer> {
  return spawned.start(env)
}

async function init(server: SpawnedServer, size: number) {
  const headers = uploadHeaders(size)
  const res = await fetch(`${server.url}/api/upload/init`, { method: 'POST', headers })
  expect(res.status).toBe(201)
  const { id } = (await res.json()) as { id: string }
  return { id, authToken: headers['X-Auth-Token']!, ownerToken: headers['X-Owner-Token']! }
}

function sendChunk(
  server: SpawnedServer,
  id: string,
  index: number,
  bytes: Uint8Array<ArrayBuffer>,
) {
  return fetch(`${server.url}/api/upload/${id}/chunk?index=${index}`, {
    method: 'POST',
    body: bytes,
  })
}

function finalize(server: SpawnedServer, id: string, ownerToken: string) {
  return fetch(`${server.url}/api/upload/${id}/finalize`, {
    method: 'POST',
    headers: { 'X-Owner-Token': ownerToken },
  })
}

/** The stored bytes of an upload, through the server or, on S3, its presigned URL. */
async function download(server: SpawnedServer, id: string, authToken: string): Promise<Buffer> {
  const res = await fetch(`${server.url}/api/download/${id}`, {
    headers: { 'X-Auth-Token': authToken },
  })
  return downloaded(res)
}

/** The bytes of an upload into a request, from its inbox. */
async function downloadFromInbox(
  server: SpawnedServer,
  req: { id: string; inboxToken: string },
  uid: string,
): Promise<Buffer> {
  const res = await fetch(`${server.url}/api/inbox/${req.id}/file/${uid}`, {
    headers: { 'X-Inbox-Token': req.inboxToken },
  })
  return downloaded(res)
}

/** The body of a download answer, or of the presigned URL it answers on S3. */
async function downloaded(res: Response): Promise<Buffer> {
  expect(res.status).toBe(200)
  if (res.headers.get('content-type')?.startsWith('application/json')) {
    const { url } = (await res.json()) as { url: string }
    return Buffer.from(await (await fetch(url)).arrayBuffer())
  }
  return Buffer.from(await res.arrayBuffer())
}

/** Sends the first half of a chunk's body and leaves the request hanging. */
async function startChunk(server: SpawnedServer, id: string, index: number, bytes: Buffer) {
  const req = request(`${server.url}/api/upload/${id}/chunk?index=${index}`, {
    method: 'POST',
    headers: { 'Content-Length': String(bytes.length) },
  })
  req.on('error', () => undefined)
  await new Promise<void>((resolve) =>
    req.write(bytes.subarray(0, bytes.length / 2), () => resolve()),
  )
  return req
}

describe.each([
  { backend: 'filesystem' as const, skip: false },
  { backend: 's3' as const, skip: s3Missing !== null },
])('two instances on one PostgreSQL database, $backend', ({ backend, skip }) => {
  beforeAll(async () => {
    if (backend === 's3' && !skip) gateway ??= testRadosgw()
  }, 90_000)

  it.skipIf(skip)(
    'takes chunks of any size at either instance and finalizes on the other, byte-exact',
    { timeout: 60_000 },
    async () => {
      const env = await clusterEnv(backend)
      const [a, b] = await Promise.all([startInstance(env), startInstance(env)])
      // Chunks over and under S3's 5 MiB part minimum, in every order the join must handle.
      const chunks = [6 * MiB, 1 * MiB, 2 * MiB + 7, 6 * MiB, 300 * KiB, 3 * MiB].map((n) =>
        randomBytes(n),
      )
      const body = Buffer.concat(chunks)
      const up = await init(a, body.length)
      const last = chunks.length - 1
      for (const [index, chunk] of chunks.slice(0, last).entries()) {
        const res = await sendChunk(index % 2 === 0 ? b : a, up.id, index, chunk)
        expect(res.status).toBe(200)
      }
      // Property: one index sent to both instances at once is recorded once; the other gets 400.
      const racing = await Promise.all([a, b].map((s) => sendChunk(s, up.id, last, chunks[last]!)))
      expect(racing.map((res) => res.status).sort()).toEqual([200, 400])
      // An index taken at one instance is taken at the other.
      const again = await sendChunk(b, up.id, 1, chunks[1]!)
      expect(again.status).toBe(400)
      expect(await again.json()).toEqual({ error: 'Chunk already received' })
      const done = await finalize(b, up.id, up.ownerToken)
      expect(done.status).toBe(200)
      expect((await done.json()) as { id: string }).toMatchObject({ id: up.id })
      expect((await download(a, up.id, up.authToken)).equals(body)).toBe(true)
      // Nothing of the session is left: no chunk files (filesystem) or chunk objects (S3).
      if (backend === 'filesystem') {
        expect(await readdir(join(env.DATA_DIR!, 'blobs', '.chunks'))).toEqual([])
      }
      expect((await sendChunk(a, up.id, 6, randomBytes(10))).status).toBe(404)
    },
  )

  it.skipIf(skip)(
    'lets the client go on at the other instance when one is killed mid-chunk, and keeps the session across a restart',
    { timeout: 60_000 },
    async () => {
      const env = await clusterEnv(backend)
      const [a, b] = await Promise.all([startInstance(env), startInstance(env)])
      const chunks = [2 * MiB, 3 * MiB, 1 * MiB].map((n) => randomBytes(n))
      const body = Buffer.concat(chunks)
      const up = await init(b, body.length)
      expect((await sendChunk(b, up.id, 0, chunks[0]!)).status).toBe(200)
      const hanging = await startChunk(b, up.id, 1, chunks[1]!)
      await new Promise((resolve) => setTimeout(resolve, 300))
      b.child.kill('SIGKILL')
      await b.exited
      hanging.destroy()
      // Property: a chunk cut off by its instance's death leaves no record; its retry is taken.
      expect((await sendChunk(a, up.id, 1, chunks[1]!)).status).toBe(200)
      const restarted = await startInstance(env)
      expect((await sendChunk(restarted, up.id, 2, chunks[2]!)).status).toBe(200)
      const done = await finalize(a, up.id, up.ownerToken)
      expect(done.status).toBe(200)
      expect((await download(restarted, up.id, up.authToken)).equals(body)).toBe(true)
    },
  )

  it.skipIf(skip)(
    'takes the chunks of an upload into a request at either instance, byte-exact from the inbox',
    { timeout: 60_000 },
    async () => {
      const env = await clusterEnv(backend)
      const [a, b] = await Promise.all([startInstance(env), startInstance(env)])
      const req = await createRequest(a, { maxUploads: 1, downloads: 1 })
      const chunks = [6 * MiB, 1 * MiB, 2 * MiB + 7, 300 * KiB].map((n) => randomBytes(n))
      const body = Buffer.concat(chunks)
      const uid = await initOk(b, req, body.length)
      for (const [index, bytes] of chunks.entries()) {
        const res = await requestChunk(index % 2 === 0 ? a : b, req, uid, index, bytes)
        expect(res.status, JSON.stringify(res.body)).toBe(200)
      }
      // The slot is held at every instance, and the session is found only under its request.
      expect((await initRequestUpload(a, req, 10)).status).toBe(409)
      const other = await createRequest(b, { maxUploads: 1, downloads: 1 })
      expect((await finalizeRequestUpload(a, other, uid, finalizeBody())).status).toBe(404)
      const done = await finalizeRequestUpload(a, req, uid, finalizeBody())
      expect(done.status, JSON.stringify(done.body)).toBe(200)
      expect((await downloadFromInbox(b, req, uid)).equals(body)).toBe(true)
    },
  )

  it.skipIf(skip)(
    'resumes a chunked upload from nextIndex through the other instance after its own was killed',
    { timeout: 60_000 },
    async () => {
      const env = await clusterEnv(backend)
      const [a, b] = await Promise.all([startInstance(env), startInstance(env)])
      const chunks = [2 * MiB, 3 * MiB, 1 * MiB, 2 * MiB].map((n) => randomBytes(n))
      const body = Buffer.concat(chunks)
      const up = await init(a, body.length)
      for (const index of [0, 1]) {
        expect((await sendChunk(a, up.id, index, chunks[index]!)).status).toBe(200)
      }
      a.child.kill('SIGKILL')
      await a.exited
      const status = await fetch(`${b.url}/api/upload/${up.id}/status`, {
        headers: { 'X-Owner-Token': up.ownerToken },
      })
      expect(status.status).toBe(200)
      const { nextIndex, bytesWritten } = (await status.json()) as UploadStatusResponse
      expect({ nextIndex, bytesWritten }).toEqual({ nextIndex: 2, bytesWritten: 5 * MiB })
      // What is durable is not taken twice; the client goes on from nextIndex.
      const again = await sendChunk(b, up.id, 1, chunks[1]!)
      expect(again.status).toBe(400)
      expect(await again.json()).toEqual({ error: 'Chunk already received' })
      for (let index = nextIndex!; index < chunks.length; index++) {
        expect((await sendChunk(b, up.id, index, chunks[index]!)).status).toBe(200)
      }
      expect((await finalize(b, up.id, up.ownerToken)).status).toBe(200)
      expect((await download(b, up.id, up.authToken)).equals(body)).toBe(true)
    },
  )

  it.skipIf(skip)(
    'leaves the unfinished upload of one instance alone when another starts',
    { timeout: 60_000 },
    async () => {
      const env = await clusterEnv(backend)
      const a = await startInstance(env)
      const body = randomBytes(8 * MiB)
      const headers = uploadHeaders(body.length, {}, 'Content-Length')
      const req = request(`${a.url}/api/upload`, { method: 'POST', headers })
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = ''
          res.on('data', (data: Buffer) => (text += data.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        })
        req.on('error', reject)
      })
      // Past one S3 part, so that the multipart upload exists when the other instance starts.
      await new Promise<void>((resolve) => req.write(body.subarray(0, 6 * MiB), () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 500))
      await startInstance(env)
      req.end(body.subarray(6 * MiB))
      const { status, text } = await answer
      expect(status).toBe(200)
      const { id } = JSON.parse(text) as { id: string }
      expect((await download(a, id, headers['X-Auth-Token']!)).equals(body)).toBe(true)
    },
  )
})
