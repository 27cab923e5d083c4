/**
 * A storage out of reach is the storage's outage: the S3 store says so for a refused connection,
 * and the server answers 503 and logs it as the storage's, not as the database's.
 */
import { createServer } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'

import { isDatabaseUnavailable } from '../src/db/unavailable.js'
import { createLogger } from '../src/logger.js'
import { S3BlobStore } from '../src/storage/s3.js'
import { isStorageUnavailable, StorageUnavailableError } from '../src/storage/unavailable.js'
import { startTestServer, uploadHeaders, type TestServer } from './harness.js'

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** An S3 store whose server refuses every connection. */
async function unreachableS3(): Promise<S3BlobStore> {
  return new S3BlobStore({
    endpoint: `http://127.0.0.1:${await closedPort()}`,
    region: 'us-east-1',
    bucket: 'fileshare',
    accessKeyId: 'key',
    secretAccessKey: 'secret',
    forcePathStyle: true,
    partSize: 5 * 1024 * 1024,
    presignedUrlExpirySec: 300,
  })
}

/** Uploads 10 bytes in one request and expects the storage outage's 503. */
async function expectUploadRefused(server: TestServer): Promise<void> {
  const res = await fetch(`${server.url}/api/upload`, {
    method: 'POST',
    headers: uploadHeaders(10, {}, 'Content-Length'),
    body: new Uint8Array(10),
  })
  expect(res.status).toBe(503)
  expect(res.headers.get('Retry-After')).toBe('5')
  expect(await res.json()).toEqual({ error: 'Service temporarily unavailable' })
}

describe('storage outage', () => {
  it('is what the S3 store throws when its server refuses the connection', async () => {
    const failure = await (await unreachableS3()).check().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isStorageUnavailable(failure)).toBe(true)
    expect(isDatabaseUnavailable(failure)).toBe(false)
  })

  it('answers 503 and logs the storage, not the database, as unavailable', async () => {
    const lines: string[] = []
    const sink = { write: (line: string) => lines.push(line) }
    server = await startTestServer({ logger: createLogger('warn', { stdout: sink, stderr: sink }) })
    // Uploads go to an S3 server that is down; the database is up.
    const s3 = await unreachableS3()
    server.service.blobs.create = (key) => s3.create(key)
    await expectUploadRefused(server)
    expect(lines.join('')).toMatch(/WARN storage unavailable: .*ECONNREFUSED/)
    expect(lines.join('')).not.toMatch(/database unavailable/)
  })

  // A store that fails mid-upload and then cannot discard the partial bytes either must cost
  // that upload only, never the process (an unhandled rejection ends Node).
  it('answers 503 and keeps running when the store can neither write nor discard', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const lines: string[] = []
      const sink = { write: (line: string) => lines.push(line) }
      server = await startTestServer({
        logger: createLogger('warn', { stdout: sink, stderr: sink }),
      })
      const outage = () => new StorageUnavailableError(new Error('connect ECONNREFUSED'))
      let aborts = 0
      server.service.blobs.create = async () => ({
        bytesWritten: 0,
        write: () => Promise.reject(outage()),
        commit: () => Promise.reject(outage()),
        abort: () => {
          aborts++
          return Promise.reject(outage())
        },
      })
      await expectUploadRefused(server)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(aborts).toBeGreaterThan(0)
      expect(unhandled).toEqual([])
      // The failed discard is logged; the cleanup job's sweep removes what it left.
      expect(lines.join('')).toMatch(/ERROR StorageUnavailableError.*at Object\.abort/)
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})
