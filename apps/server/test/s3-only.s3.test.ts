/**
 * What only the S3 backend does, against the real server and a real radosgw: presigned download
 * URLs handed out after the count (spec: What the service does, 7), multipart uploads aborted for
 * every session that does not finish, stale ones swept, and removals retried.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import {
  CreateMultipartUploadCommand,
  DeleteBucketPolicyCommand,
  PutBucketPolicyCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'

import { createLogger } from '../src/logger.js'
import { URL_HOLD_MARGIN_MS } from '../src/records/blob-janitor.js'
import { CleanupJob, PARTIAL_MARGIN_MS } from '../src/ops/cleanup.js'
import type { S3BlobStore } from '../src/storage/s3.js'
import {
  manualClock,
  randomToken,
  startTestServer,
  uploadHeaders,
  type TestServer,
} from './harness.js'
import {
  newBucketName,
  openMultipartKeys,
  openTestStore,
  s3Env,
  TEST_PART_SIZE,
  testRadosgw,
} from './s3-backend.js'
import { call, createRequest, ENV, send } from './requests.suite.js'
import { initChunked, json, MiB, sendChunk } from './uploads.suite.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

/** Larger than two parts, so an upload of it has parts in flight and a short last part. */
const MULTIPART_SIZE = 2 * TEST_PART_SIZE + 1000

function download(server: TestServer, id: string, authToken: string): Promise<Response> {
  return fetch(`${server.url}/api/download/${id}`, { headers: { 'X-Auth-Token': authToken } })
}

/** Uploads `body` in chunks of 4 MiB over chunked HTTP and finalizes it. */
async function uploadChunked(server: TestServer, body: Buffer, overrides = {}) {
  const up = await initChunked(server, body.length, overrides)
  for (let index = 0; index * 4 * MiB < body.length; index++) {
    const chunk = new Uint8Array(body.subarray(index * 4 * MiB, (index + 1) * 4 * MiB))
    expect((await sendChunk(server, up.id, index, chunk)).status).toBe(200)
  }
  const done = await fetch(`${server.url}/api/upload/${up.id}/finalize`, {
    method: 'POST',
    headers: { 'X-Owner-Token': up.ownerToken },
  })
  expect(done.status, JSON.stringify(await done.clone().json())).toBe(200)
  return up
}

/** Waits until `check` holds, polling: aborts after a closed socket happen asynchronously. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Opens an upload socket and sends `init`; resolves with the socket and the upload id. */
async function openSocketUpload(server: TestServer, size: number) {
  const headers = uploadHeaders(size)
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/upload/ws`)
  const frames: Array<Record<string, unknown>> = []
  ws.on('message', (data, isBinary) => {
    if (!isBinary) frames.push(JSON.parse(String(data)) as Record<string, unknown>)
  })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  ws.send(
    JSON.stringify({
      type: 'init',
      headers: {
        authToken: headers['X-Auth-Token'],
        ownerToken: headers['X-Owner-Token'],
        salt: headers['X-Salt'],
        maxDownloads: '1',
        expireSec: '86400',
        fileCount: '1',
        contentLength: String(size),
        hasPassword: 'false',
      },
    }),
  )
  const frame = async (type: string) => {
    await eventually(async () => frames.some((f) => f.type === type))
    return frames.find((f) => f.type === type)!
  }
  const id = (await frame('ready')).id as string
  return { ws, id, frame, authToken: headers['X-Auth-Token']! }
}

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('S3 backend', { timeout: 30_000 }, () => {
  let gateway: Radosgw
  let server: TestServer
  const clock = manualClock()
  const store = () => server.service.blobs as S3BlobStore

  beforeAll(async () => {
    gateway = testRadosgw()
    server = await startTestServer({
      clock,
      env: { ...s3Env(gateway), FILE_DOWNLOAD_OPTIONS: '1,2,5', UPLOAD_SESSION_IDLE_SEC: '600' },
    })
  }, 90_000)
  afterAll(async () => {
    await server?.close()
    await gateway?.stop()
  })

  describe('downloads', () => {
    it('answers { url, size, fileCount }; the URL serves the exact ciphertext', async () => {
      const body = randomBytes(MULTIPART_SIZE)
      const up = await uploadChunked(server, body, { 'X-File-Count': '2' })
      const res = await download(server, up.id, up.authToken)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-store')
      const answer = await json(res)
      expect(answer).toEqual({ url: expect.any(String), size: body.length, fileCount: 2 })
      const url = new URL(answer.url as string)
      expect(url.origin).toBe(gateway.endpoint)
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300')
      const blob = await fetch(url)
      expect(blob.status).toBe(200)
      expect(Buffer.from(await blob.arrayBuffer()).equals(body)).toBe(true)
    })

    it('counts the download before it hands out the URL', async () => {
      const up = await uploadChunked(server, randomBytes(1000))
      const first = await json(await download(server, up.id, up.authToken))
      // The URL is not fetched, yet the only download is used up.
      const second = await download(server, up.id, up.authToken)
      expect(second.status).toBe(410)
      expect(await json(second)).toEqual({ error: 'Upload expired or download limit reached' })
      expect((await fetch(first.url as string)).status).toBe(200)
    })

    it('hands out no URL without the auth token, and counts nothing then', async () => {
      const up = await uploadChunked(server, randomBytes(1000))
      const wrong = await download(server, up.id, randomToken())
      expect(wrong.status).toBe(401)
      expect(await json(wrong)).not.toHaveProperty('url')
      expect((await download(server, up.id, up.authToken)).status).toBe(200)
    })

    it('refuses a tampered presigned URL: SigV4 covers the key and the lifetime', async () => {
      const one = await uploadChunked(server, randomBytes(1000), { 'X-Max-Downloads': '5' })
      const other = await uploadChunked(server, randomBytes(1000))
      const url = (await json(await download(server, one.id, one.authToken))).url as string
      const signature = new URL(url).searchParams.get('X-Amz-Signature')!
      const flipped = `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`
      const tampered = [
        url.replace(`X-Amz-Signature=${signature}`, `X-Amz-Signature=${flipped}`),
        url.replace(one.id, other.id),
        url.replace('X-Amz-Expires=300', 'X-Amz-Expires=3000'),
      ]
      for (const changed of tampered) {
        expect(changed).not.toBe(url)
        expect((await fetch(changed)).status).toBe(403)
      }
      expect((await fetch(url)).status).toBe(200)
    })

    it('refuses a presigned URL once S3_PRESIGNED_URL_EXPIRY has passed', async () => {
      const short = await startTestServer({
        env: { ...s3Env(gateway), S3_PRESIGNED_URL_EXPIRY: '1' },
      })
      try {
        const up = await uploadChunked(short, randomBytes(1000))
        const url = (await json(await download(short, up.id, up.authToken))).url as string
        expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('1')
        await new Promise((resolve) => setTimeout(resolve, 2500))
        expect((await fetch(url)).status).toBe(403)
      } finally {
        await short.close()
      }
    })

    it('lets the web app fetch from the S3 origin (Content-Security-Policy)', async () => {
      const res = await fetch(`${server.url}/api/health`)
      const policy = res.headers.get('content-security-policy') ?? ''
      expect(policy).toContain(`connect-src 'self' ${gateway.endpoint};`)
    })
  })

  describe('a used-up blob outlives its last presigned URL', () => {
    /** S3_PRESIGNED_URL_EXPIRY of the test servers (the default), in milliseconds. */
    const URL_LIFETIME_MS = 300_000

    async function keysOf(target: TestServer): Promise<string[]> {
      const found: string[] = []
      for await (const blob of (target.service.blobs as S3BlobStore).list()) found.push(blob.key)
      return found
    }

    // The last counted download must stay fetchable for as long as its URL is valid.
    it('keeps the object until the URL has expired, across a restart, then removes it', async () => {
      const bucket = newBucketName()
      const holdClock = manualClock()
      const first = await startTestServer({ clock: holdClock, env: s3Env(gateway, bucket) })
      const body = randomBytes(1000)
      const up = await uploadChunked(first, body)
      const { url } = (await json(await download(first, up.id, up.authToken))) as { url: string }
      holdClock.advance(1000)
      const retired = await first.service.cleanup.runOnce()
      expect((await download(first, up.id, up.authToken)).status).toBe(410)
      const fetched = await fetch(url)
      expect(fetched.status).toBe(200)
      expect(Buffer.from(await fetched.arrayBuffer()).equals(body)).toBe(true)
      expect(retired).toMatchObject({ uploadsRemoved: 1, blobsHeld: 1, blobsQueued: 0 })

      // The hold is kept in the database: a restarted server still honours it, then ends it.
      await first.close({ keepData: true })
      const second = await startTestServer({
        clock: holdClock,
        dataDir: first.dataDir,
        env: s3Env(gateway, bucket),
      })
      try {
        holdClock.advance(URL_LIFETIME_MS + URL_HOLD_MARGIN_MS - 2000)
        expect((await second.service.cleanup.runOnce()).blobsRetried).toBe(0)
        expect(await keysOf(second)).toContain(up.id)
        expect((await fetch(url)).status).toBe(200)
        holdClock.advance(1001)
        expect((await second.service.cleanup.runOnce()).blobsRetried).toBe(1)
        expect(await keysOf(second)).not.toContain(up.id)
        expect((await fetch(url)).status).toBe(404)
      } finally {
        await second.close()
      }
    })

    it('does the same for the last download of an upload in a request', async () => {
      const holdClock = manualClock()
      const target = await startTestServer({ clock: holdClock, env: { ...ENV, ...s3Env(gateway) } })
      try {
        const req = await createRequest(target, { downloads: 1 })
        const sent = await send(target, req, 1000)
        // Never downloaded: its blob goes at once when its retention ends.
        const idle = await send(target, req, 1000)
        const file = await call(target, 'GET', `/inbox/${req.id}/file/${sent.id}`, {
          headers: { 'X-Inbox-Token': req.inboxToken },
        })
        expect(file.status).toBe(200)
        const url = file.body.url as string
        holdClock.advance(1000)
        const retired = await target.service.cleanup.runOnce()
        expect((await fetch(url)).status).toBe(200)
        expect(retired).toMatchObject({ requestUploadsRemoved: 1, blobsHeld: 1 })
        expect(await keysOf(target)).toEqual(expect.arrayContaining([sent.id, idle.id]))

        holdClock.advance(URL_LIFETIME_MS + URL_HOLD_MARGIN_MS)
        expect((await target.service.cleanup.runOnce()).blobsRetried).toBe(1)
        expect(await keysOf(target)).not.toContain(sent.id)
        expect((await fetch(url)).status).toBe(404)

        holdClock.advance(Number(ENV.FILE_REQUEST_RETENTION_SEC) * 1000)
        expect(await target.service.cleanup.runOnce()).toMatchObject({
          requestUploadsRemoved: 1,
          blobsHeld: 0,
        })
        expect(await keysOf(target)).not.toContain(idle.id)
      } finally {
        await target.close()
      }
    })
  })

  describe('unfinished uploads leave no multipart upload', () => {
    /** A chunked session holding one full part, so that its multipart upload exists. */
    async function sessionWithPart() {
      const up = await initChunked(server, MULTIPART_SIZE)
      expect((await sendChunk(server, up.id, 0, randomBytes(TEST_PART_SIZE + 1))).status).toBe(200)
      expect(await openMultipartKeys(store())).toContain(up.id)
      return up
    }

    it('a cancelled session', async () => {
      const up = await sessionWithPart()
      const res = await fetch(`${server.url}/api/upload/${up.id}`, {
        method: 'DELETE',
        headers: { 'X-Owner-Token': up.ownerToken },
      })
      expect(res.status).toBe(200)
      expect(await openMultipartKeys(store())).not.toContain(up.id)
    })

    it('a session that fails at finalize with fewer bytes than declared', async () => {
      const up = await sessionWithPart()
      const res = await fetch(`${server.url}/api/upload/${up.id}/finalize`, {
        method: 'POST',
        headers: { 'X-Owner-Token': up.ownerToken },
      })
      expect(res.status).toBe(400)
      expect(await openMultipartKeys(store())).not.toContain(up.id)
    })

    it('an abandoned session, ended by the cleanup job', async () => {
      const up = await sessionWithPart()
      clock.advance(601_000)
      expect((await server.service.cleanup.runOnce()).sessionsExpired).toBeGreaterThanOrEqual(1)
      expect(await openMultipartKeys(store())).not.toContain(up.id)
    })

    it('a WebSocket closed mid-upload; a finished one is stored whole', async () => {
      const broken = await openSocketUpload(server, MULTIPART_SIZE)
      broken.ws.send(randomBytes(TEST_PART_SIZE + 1))
      await eventually(async () => (await openMultipartKeys(store())).includes(broken.id))
      // Closed with 1000: an abort (a dropped connection keeps the upload to resume instead).
      broken.ws.close(1000)
      await eventually(async () => !(await openMultipartKeys(store())).includes(broken.id))

      const body = randomBytes(MULTIPART_SIZE)
      const whole = await openSocketUpload(server, body.length)
      for (let offset = 0; offset < body.length; offset += MiB) {
        whole.ws.send(body.subarray(offset, offset + MiB))
      }
      whole.ws.send(JSON.stringify({ type: 'finalize' }))
      expect((await whole.frame('done')).id).toBe(whole.id)
      whole.ws.close()
      const answer = await json(await download(server, whole.id, whole.authToken))
      const blob = Buffer.from(await (await fetch(answer.url as string)).arrayBuffer())
      expect(blob.equals(body)).toBe(true)
    })
  })

  describe('sweeps and removals', () => {
    /** A multipart upload with one part, as a crash between two parts leaves it. */
    async function strandedUpload(target: S3BlobStore): Promise<string> {
      const key = randomUUID()
      const { UploadId } = await target.client.send(
        new CreateMultipartUploadCommand({ Bucket: target.bucket, Key: key }),
      )
      await target.client.send(
        new UploadPartCommand({
          Bucket: target.bucket,
          Key: key,
          UploadId,
          PartNumber: 1,
          Body: randomBytes(1000),
          ContentLength: 1000,
        }),
      )
      return key
    }

    it('the cleanup job aborts stale multipart uploads, but not those of open sessions', async () => {
      const stale = await strandedUpload(store())
      const open = await initChunked(server, MULTIPART_SIZE)
      await sendChunk(server, open.id, 0, randomBytes(TEST_PART_SIZE))
      const idleMs = server.service.config.uploadSessionIdleSec * 1000
      // The same bucket seen from a clock past the sweep's threshold: radosgw dates uploads itself.
      const later = await openTestStore(gateway, {
        bucket: store().bucket,
        now: () => Date.now() + idleMs + PARTIAL_MARGIN_MS + 60_000,
      })
      const job = new CleanupJob({
        config: server.service.config,
        db: server.service.db,
        blobs: later,
        services: server.service.services,
        logger: createLogger('silent'),
        leader: server.service.leader,
        now: clock.now,
      })
      expect((await job.runOnce()).partialsRemoved).toBeGreaterThanOrEqual(1)
      const left = await openMultipartKeys(store())
      expect(left).not.toContain(stale)
      expect(left).toContain(open.id)
      // A sweep with the real clock finds the new stranded upload too young.
      const young = await strandedUpload(store())
      await server.service.cleanup.runOnce()
      expect(await openMultipartKeys(store())).toContain(young)
    })

    it('a restart aborts every multipart upload the last run left', async () => {
      const bucket = newBucketName()
      const first = await startTestServer({ env: s3Env(gateway, bucket) })
      const stranded = await strandedUpload(first.service.blobs as S3BlobStore)
      await first.close()
      const second = await startTestServer({ env: s3Env(gateway, bucket) })
      try {
        expect(await openMultipartKeys(second.service.blobs as S3BlobStore)).not.toContain(stranded)
      } finally {
        await second.close()
      }
    })

    it('a delete that S3 refuses answers 200 and is retried by the next cleanup run', async () => {
      const up = await uploadChunked(server, randomBytes(1000))
      const { bucket, client } = store()
      const denyDelete = {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Deny',
            Principal: '*',
            Action: 's3:DeleteObject',
            Resource: `arn:aws:s3:::${bucket}/*`,
          },
        ],
      }
      await client.send(
        new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify(denyDelete) }),
      )
      const keys = async () => {
        const found: string[] = []
        for await (const blob of store().list()) found.push(blob.key)
        return found
      }
      try {
        const res = await fetch(`${server.url}/api/upload/${up.id}`, {
          method: 'DELETE',
          headers: { 'X-Owner-Token': up.ownerToken },
        })
        expect(res.status).toBe(200)
        expect((await download(server, up.id, up.authToken)).status).toBe(404)
        expect(await keys()).toContain(up.id)
        expect((await server.service.cleanup.runOnce()).blobsRetried).toBe(0)
        expect(await keys()).toContain(up.id)
      } finally {
        await client.send(new DeleteBucketPolicyCommand({ Bucket: bucket }))
      }
      expect((await server.service.cleanup.runOnce()).blobsRetried).toBe(1)
      expect(await keys()).not.toContain(up.id)
    })
  })
})
