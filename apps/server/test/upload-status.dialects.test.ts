/**
 * The status of an unfinished upload and a chunked upload resumed from it (docs/api.md: GET
 * /api/upload/:id/status, GET /api/request/:id/upload/:uid/status) for chunked sessions kept
 * in the database (PostgreSQL). Streamed sessions answer through their own provider, which
 * resume.suite.ts checks on both databases. Both routes carry the rate limit's headers, under the
 * spec's names, and answer 429 past it.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { get, type IncomingHttpHeaders } from 'node:http'

import { ERROR_MESSAGES, PATHS, type UploadStatusResponse } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { followDownload } from './backends.js'
import { startTestServer, type TestServer } from './harness.js'
import {
  ENV,
  chunk,
  createRequest,
  downloadFile,
  finalize as finalizeRequestUpload,
  finalizeBody,
  initOk,
} from './requests.suite.js'
import { initChunked, json, sendChunk } from './uploads.suite.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: ENV })
})
afterAll(async () => {
  await server?.close()
})

function status(path: string, ownerToken?: string) {
  return fetch(`${server.url}${path}`, {
    headers: ownerToken === undefined ? {} : { 'X-Owner-Token': ownerToken },
  })
}

async function expectAnswer(res: Response, code: number, body: unknown) {
  expect({ status: res.status, body: await json(res) }).toEqual({ status: code, body })
}

const notFound = { error: ERROR_MESSAGES.uploadNotFound }

describe('upload status', () => {
  it('answers 404 Upload not found for an id no session has', async () => {
    await expectAnswer(await status(PATHS.uploadStatus(randomUUID()), 'x'), 404, notFound)
    await expectAnswer(await status(PATHS.uploadStatus('nope'), 'x'), 404, notFound)
    const req = await createRequest(server)
    const path = PATHS.requestUploadStatus(req.id, randomUUID())
    await expectAnswer(await status(path), 404, notFound)
  })

  it('answers how far a chunked upload got, which then resumes from nextIndex to the same bytes', async () => {
    const parts = [300, 200, 250, 100].map((n) => randomBytes(n))
    const body = Buffer.concat(parts)
    const up = await initChunked(server, body.length)
    const path = PATHS.uploadStatus(up.id)
    const expected = (bytesWritten: number, nextIndex: number): UploadStatusResponse => ({
      bytesWritten,
      nextIndex,
      declaredSize: body.length,
      transport: 'chunks',
    })
    await expectAnswer(await status(path, up.ownerToken), 200, expected(0, 0))
    expect((await sendChunk(server, up.id, 0, parts[0]!)).status).toBe(200)
    // An early chunk is recorded but not yet contiguous from byte 0.
    expect((await sendChunk(server, up.id, 2, parts[2]!)).status).toBe(200)
    await expectAnswer(await status(path, up.ownerToken), 200, expected(300, 1))
    // Resending what is durable answers as before: the client sends from nextIndex only.
    await expectAnswer(await sendChunk(server, up.id, 0, parts[0]!), 400, {
      error: ERROR_MESSAGES.duplicateChunk,
    })
    expect((await sendChunk(server, up.id, 1, parts[1]!)).status).toBe(200)
    await expectAnswer(await status(path, up.ownerToken), 200, expected(750, 3))
    expect((await sendChunk(server, up.id, 3, parts[3]!)).status).toBe(200)
    const done = await fetch(`${server.url}/api/upload/${up.id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': up.ownerToken },
    })
    expect(done.status).toBe(200)
    const res = await followDownload(
      server,
      await fetch(`${server.url}/api/download/${up.id}`, {
        headers: { 'X-Auth-Token': up.authToken },
      }),
    )
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true)
    // A finalized upload has no session left.
    await expectAnswer(await status(path, up.ownerToken), 404, notFound)
  })

  // Security: the owner token is checked against its stored hash; a wrong one learns and changes nothing.
  it('answers 401 for a wrong or missing owner token and changes nothing', async () => {
    const up = await initChunked(server, 20)
    const path = PATHS.uploadStatus(up.id)
    expect((await sendChunk(server, up.id, 0, randomBytes(10))).status).toBe(200)
    const refused = { error: ERROR_MESSAGES.invalidOrMissingOwnerToken }
    await expectAnswer(await status(path, up.authToken), 401, refused)
    await expectAnswer(await status(path), 401, refused)
    await expectAnswer(await status(path, 'not a token'), 401, refused)
    const answer = await json(await status(path, up.ownerToken))
    expect(answer).toMatchObject({ bytesWritten: 10, nextIndex: 1 })
    expect((await sendChunk(server, up.id, 1, randomBytes(10))).status).toBe(200)
  })

  it('answers for an upload into a request only under its own request', async () => {
    const req = await createRequest(server)
    const other = await createRequest(server)
    const uid = await initOk(server, req, 30)
    const data = randomBytes(30)
    expect((await chunk(server, req, uid, 0, data.subarray(0, 20))).status).toBe(200)
    await expectAnswer(await status(PATHS.requestUploadStatus(req.id, uid)), 200, {
      bytesWritten: 20,
      nextIndex: 1,
      declaredSize: 30,
      transport: 'chunks',
    })
    // The upload id is the credential only under its own request.
    await expectAnswer(await status(PATHS.requestUploadStatus(other.id, uid)), 404, notFound)
    expect((await chunk(server, other, uid, 1, data.subarray(20))).status).toBe(404)
    await expectAnswer(await status(PATHS.uploadStatus(uid), 'x'), 404, notFound)
    expect((await chunk(server, req, uid, 1, data.subarray(20))).status).toBe(200)
    const done = await finalizeRequestUpload(server, req, uid, finalizeBody())
    expect(done.status).toBe(200)
    expect((await downloadFile(server, req, uid)).bytes.equals(data)).toBe(true)
    await expectAnswer(await status(PATHS.requestUploadStatus(req.id, uid)), 404, notFound)
  })
})

/** A GET whose answer keeps its header names as the server spelled them. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; names: string[]; headers: IncomingHttpHeaders; body: unknown }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          names: res.rawHeaders.filter((_, index) => index % 2 === 0),
          headers: res.headers,
          body: JSON.parse(Buffer.concat(parts).toString()),
        }),
      )
    }).once('error', reject)
  })
}

describe('rate limit on the status routes', () => {
  const MAX = 4
  let limited: TestServer
  beforeAll(async () => {
    limited = await startTestServer({
      env: { ...ENV, RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW: '60000' },
    })
  })
  afterAll(async () => {
    await limited?.close()
  })

  // Spec: Limits, rate limit on all endpoints, with the three headers under their exact names.
  it('labels both with the X-RateLimit-* headers and answers 429 past the limit', async () => {
    const up = await initChunked(limited, 1000)
    const req = await createRequest(limited)
    const uid = await initOk(limited, req, 1000)
    // The status calls come from an address of their own (TRUST_PROXY), with all of its limit.
    const from = { 'X-Forwarded-For': '203.0.113.77' }
    const calls = [
      () =>
        rawGet(`${limited.url}${PATHS.uploadStatus(up.id)}`, {
          ...from,
          'X-Owner-Token': up.ownerToken,
        }),
      () => rawGet(`${limited.url}${PATHS.requestUploadStatus(req.id, uid)}`, from),
    ]
    const answers = []
    for (let i = 0; i < MAX + 2; i++) answers.push(await calls[i % 2]!())

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429, 429])
    for (const answer of answers) {
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        expect(answer.names).toContain(name)
        expect(answer.headers[name.toLowerCase()]).toMatch(/^\d+$/)
      }
      expect(answer.headers['x-ratelimit-limit']).toBe(String(MAX))
    }
    expect(answers.map((a) => Number(a.headers['x-ratelimit-remaining']))).toEqual([
      3, 2, 1, 0, 0, 0,
    ])
    for (const refused of answers.slice(MAX)) {
      expect(refused.body).toEqual({ error: 'Too many requests' })
      expect(refused.names).toContain('Retry-After')
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    }
  })
})
