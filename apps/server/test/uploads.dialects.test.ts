/**
 * File uploads over HTTP on the filesystem backend (the same suite runs on S3 in
 * integration.s3.test.ts), and the upload speed limit.
 */
import { randomBytes } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { FILESYSTEM, followDownload } from './backends.js'
import { startTestServer, type TestServer } from './harness.js'
import { initChunked, json, MiB, sendChunk, uploadsSuite } from './uploads.suite.js'

uploadsSuite(FILESYSTEM)

describe('speed limit', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_SPEED_LIMIT: '1MB' } })
  })
  afterAll(() => server.close())

  it('delays chunk answers so the upload keeps to FILE_UPLOAD_SPEED_LIMIT', async () => {
    // From before the init: the session's own clock starts there, so time taken between the init
    // and the first chunk (a loaded machine) counts toward the limit's two seconds.
    const started = Date.now()
    const up = await initChunked(server, 2 * MiB)
    expect((await sendChunk(server, up.id, 0, randomBytes(MiB))).status).toBe(200)
    expect((await sendChunk(server, up.id, 1, randomBytes(MiB))).status).toBe(200)
    // Two MiB at one MiB per second cannot be acknowledged in much less than two seconds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
    const config = await json(await fetch(`${server.url}/api/config`))
    expect(config.uploadSpeedLimit).toBe(MiB)
  })
})

describe('a chunked upload whose stored chunks cannot be removed once it is recorded', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it('is stored and downloads whole, its chunks left to the sweep', async () => {
    const data = randomBytes(3000)
    const up = await initChunked(server, data.length)
    expect((await sendChunk(server, up.id, 0, data)).status).toBe(200)
    server.service.blobs.deleteChunks = () => Promise.reject(new Error('the storage is away'))
    const res = await fetch(`${server.url}/api/upload/${up.id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': up.ownerToken },
    })
    expect(res.status, JSON.stringify(await json(res))).toBe(200)
    const got = await followDownload(
      server,
      await fetch(`${server.url}/api/download/${up.id}`, {
        headers: { 'X-Auth-Token': up.authToken },
      }),
    )
    expect(got.status).toBe(200)
    expect(Buffer.from(await got.arrayBuffer())).toEqual(data)
  })
})
