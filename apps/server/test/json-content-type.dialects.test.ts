/**
 * Routes that create content or spend a limit take only bodies declared `application/json`
 * (415 otherwise), so that a page on another site cannot drive them with an HTML form, which can
 * only send text/plain, form-urlencoded or multipart bodies (and the signed-in user's cookie).
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES, toBase64, toBase64Url } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { noteBody, startTestServer, uploadHeaders, type TestServer } from './harness.js'
import {
  call,
  chunk,
  createRequest,
  ENV,
  finalizeBody,
  initOk,
  nextIp,
  requestBody,
} from './requests.suite.js'
import { initChunked, json, sendChunk } from './uploads.suite.js'

/** The body types an HTML form can send, each with a body that is valid JSON all the same. */
const FORM_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
]

/** POSTs `body` as text with `type` (or no Content-Type at all when null). */
async function post(
  server: TestServer,
  path: string,
  type: string | null,
  body: string | undefined,
  headers: Record<string, string> = {},
  ip = nextIp(),
) {
  const res = await fetch(`${server.url}/api${path}`, {
    method: 'POST',
    headers: { ...headers, 'X-Forwarded-For': ip, ...(type ? { 'Content-Type': type } : {}) },
    ...(body === undefined ? {} : { body }),
  })
  return { status: res.status, body: await json(res) }
}

describe('JSON-only creation routes', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, FILE_REQUEST_DAILY_LIMIT: '3' } })
  })
  afterAll(() => server.close())

  // Security: a cross-site form cannot create a request nor use up the caller's daily limit.
  it('POST /api/request answers 415 to any other body type, and counts nothing', async () => {
    const ip = nextIp()
    const body = JSON.stringify(requestBody())
    for (const type of [...FORM_TYPES, null]) {
      const res = await post(server, '/request', type, body, {}, ip)
      expect(res, String(type)).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    const limit = await call(server, 'GET', '/request/limit', { ip })
    expect(limit.body.remaining).toBe(3)
    const ok = await post(server, '/request', 'application/json; charset=utf-8', body, {}, ip)
    expect(ok.status).toBe(201)
  })

  // Security: a cross-site form cannot create a note.
  it('POST /api/note answers 415 to any other body type', async () => {
    const body = JSON.stringify(noteBody())
    for (const type of [...FORM_TYPES, null]) {
      const res = await post(server, '/note', type, body)
      expect(res, String(type)).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    expect((await post(server, '/note', 'application/json', body)).status).toBe(201)
  })

  it('POST /api/meta/:id answers 415 to any other body type, and saves nothing', async () => {
    const size = 10
    const headers = uploadHeaders(size, {}, 'Content-Length')
    const stored = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers,
      body: randomBytes(size),
    })
    const { id } = (await json(stored)) as { id: string }
    const owner = { 'X-Owner-Token': headers['X-Owner-Token']! }
    const meta = JSON.stringify({ encryptedMeta: toBase64(randomBytes(40)), nonce: 'AAAA' })
    for (const type of [...FORM_TYPES, null]) {
      const res = await post(server, `/meta/${id}`, type, meta, owner)
      expect(res, String(type)).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    expect((await post(server, `/meta/${id}`, 'application/json', meta, owner)).status).toBe(200)
  })

  it('a request upload finalize answers 415 to any other body type and keeps the session', async () => {
    const req = await createRequest(server, {}, nextIp())
    const uid = await initOk(server, req, 100)
    expect((await chunk(server, req, uid, 0, randomBytes(100))).status).toBe(200)
    const path = `/request/${req.id}/upload/${uid}/finalize`
    const body = JSON.stringify(finalizeBody())
    for (const type of [...FORM_TYPES, null]) {
      const res = await post(server, path, type, body)
      expect(res, String(type)).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    expect((await post(server, path, 'application/json', body)).status).toBe(200)
  })

  // Security: a cross-site form cannot open an upload session, which holds quota from init.
  it('bodiless creation routes refuse a form body type with 415 and take none', async () => {
    const headers = uploadHeaders(100)
    for (const type of FORM_TYPES) {
      const res = await post(server, '/upload/init', type, 'a=b', headers)
      expect(res, type).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    expect((await post(server, '/upload/init', null, undefined, headers)).status).toBe(201)

    const req = await createRequest(server, { maxUploads: 1 }, nextIp())
    const initPath = `/request/${req.id}/upload/init`
    const initHeaders = {
      'X-Upload-Token': req.uploadToken,
      'X-Salt': toBase64Url(randomBytes(32)),
      'X-Content-Length': '100',
    }
    for (const type of FORM_TYPES) {
      const res = await post(server, initPath, type, 'a=b', initHeaders)
      expect(res, type).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    // The refused inits held no slot: the only one is still free.
    expect((await post(server, initPath, null, undefined, initHeaders)).status).toBe(201)

    const up = await initChunked(server, 100)
    expect((await sendChunk(server, up.id, 0, randomBytes(100))).status).toBe(200)
    const owner = { 'X-Owner-Token': up.ownerToken }
    const finalizePath = `/upload/${up.id}/finalize`
    for (const type of FORM_TYPES) {
      const res = await post(server, finalizePath, type, 'a=b', owner)
      expect(res, type).toEqual({ status: 415, body: { error: ERROR_MESSAGES.notJson } })
    }
    expect((await post(server, finalizePath, null, undefined, owner)).status).toBe(200)
  })

  it('raw-byte routes keep taking any body type', async () => {
    const size = 10
    const headers = uploadHeaders(size, {}, 'Content-Length')
    const res = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'text/plain' },
      body: randomBytes(size),
    })
    expect(res.status).toBe(200)
    const up = await initChunked(server, 10)
    const chunked = await fetch(`${server.url}/api/upload/${up.id}/chunk?index=0`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: randomBytes(10),
    })
    expect(chunked.status).toBe(200)
  })
})
