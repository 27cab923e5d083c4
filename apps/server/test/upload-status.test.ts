/**
 * The status of an unfinished upload and a chunked upload resumed from it (docs/api.md: GET
 * /api/upload/:id/status, GET /api/request/:id/upload/:uid/status) for chunked sessions kept
 * in the database (PostgreSQL). Streamed sessions answer through their own provider, which
 * resume.suite.ts checks on both databases.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { ERROR_MESSAGES, PATHS, type UploadStatusResponse } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { followDownload } from './backends.js'
import { TEST_DIALECT } from './dialects.js'
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

const stored = TEST_DIALECT === 'postgres'

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

  it.skipIf(!stored)(
    'answers how far a chunked upload got, which then resumes from nextIndex to the same bytes',
    async () => {
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
    },
  )

  // Security: the owner token is checked against its stored hash; a wrong one learns and changes nothing.
  it.skipIf(!stored)(
    'answers 401 for a wrong or missing owner token and changes nothing',
    async () => {
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
    },
  )

  it.skipIf(!stored)(
    'answers for an upload into a request only under its own request',
    async () => {
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
    },
  )
})
