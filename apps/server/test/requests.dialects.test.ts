/**
 * File requests on the filesystem backend (the same suite runs on S3 in integration.s3.test.ts),
 * and what does not depend on the backend: the daily limit, restarts, ENABLED_SERVICES, creation
 * settings and the rate limit.
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { FILESYSTEM } from './backends.js'
import { manualClock, reopenDatabase, startTestServer, type TestServer } from './harness.js'
import { querySql } from './dialects.js'
import { TestSocket } from './test-socket.js'
import { HOLD_LAPSE_MS } from '../src/sessions/session-records.js'
import {
  b64u,
  call,
  chunk,
  createRequest,
  ENV,
  finalize,
  finalizeBody,
  forgetSessionRows,
  HOUR,
  init,
  initOk,
  nextIp,
  readRequest,
  requestBody,
  requestsSuite,
} from './requests.suite.js'

requestsSuite(FILESYSTEM)

describe('daily request limit', () => {
  it('counts per IP and day, survives a restart, and reports resetsAt only when used up', async () => {
    // Noon UTC, so the day does not change under the test.
    const clock = manualClock(Date.UTC(2030, 5, 1, 12))
    const env = { ...ENV, FILE_REQUEST_DAILY_LIMIT: '2' }
    let server = await startTestServer({ clock, env })
    const ip = '203.0.113.9'
    const limit = () => call(server, 'GET', '/request/limit', { ip })
    const create = () => call(server, 'POST', '/request', { body: requestBody(), ip })
    try {
      expect((await limit()).body).toEqual({ dailyLimit: 2, remaining: 2, resetsAt: null })
      expect((await limit()).body).toEqual({ dailyLimit: 2, remaining: 2, resetsAt: null })
      // A refused body counts nothing.
      expect(
        (await call(server, 'POST', '/request', { body: requestBody({ vault: 'x' }), ip })).status,
      ).toBe(400)
      expect((await create()).status).toBe(201)
      expect((await limit()).body).toEqual({ dailyLimit: 2, remaining: 1, resetsAt: null })
      expect((await create()).status).toBe(201)
      const midnight = new Date(Date.UTC(2030, 5, 2)).toISOString()
      expect((await limit()).body).toEqual({ dailyLimit: 2, remaining: 0, resetsAt: midnight })
      const refused = await create()
      expect(refused.status).toBe(429)
      expect(refused.body).toEqual({ error: ERROR_MESSAGES.dailyRequestLimitReached })
      expect(refused.headers.get('retry-after')).toBe(String(12 * 3600))
      expect(
        (await call(server, 'POST', '/request', { body: requestBody(), ip: nextIp() })).status,
      ).toBe(201)

      await server.close({ keepData: true })
      server = await startTestServer({ clock, env, dataDir: server.dataDir })
      expect((await create()).status).toBe(429)
      expect((await limit()).body).toEqual({ dailyLimit: 2, remaining: 0, resetsAt: midnight })

      clock.advance(12 * HOUR)
      expect((await limit()).body).toEqual({ dailyLimit: 2, remaining: 2, resetsAt: null })
      expect((await create()).status).toBe(201)
    } finally {
      await server.close()
    }
  })

  it('stores the client only as a keyed hash of its IP', async () => {
    const server = await startTestServer({ env: { ...ENV, FILE_REQUEST_DAILY_LIMIT: '5' } })
    try {
      const ip = '203.0.113.77'
      expect((await call(server, 'POST', '/request', { body: requestBody(), ip })).status).toBe(201)
      const rows = await querySql<{ client_key: string }>(
        server.service.db,
        'SELECT client_key FROM request_daily_counts',
      )
      expect(rows).toHaveLength(1)
      expect(rows[0]!.client_key).toMatch(/^ip:[0-9a-f]{64}$/)
      expect(rows[0]!.client_key).not.toContain(ip)
    } finally {
      await server.close()
    }
  })
})

describe('restart', () => {
  const RESUMABLE = { 'X-Resumable': 'true' }

  it('keeps the slots of uploads that may resume after a crash, and returns the others', async () => {
    let server = await startTestServer({ env: ENV })
    try {
      const req = await createRequest(server, { maxUploads: 3 })
      const kept = await initOk(server, req, 100, RESUMABLE)
      const gone = await initOk(server, req, 100, RESUMABLE)
      // Its client did not ask to resume: a restart ends it (spec: Upload slot inside a request).
      const plain = await initOk(server, req, 100)
      const first = randomBytes(50)
      expect((await chunk(server, req, kept, 0, first)).status).toBe(200)
      expect((await chunk(server, req, plain, 0, randomBytes(50))).status).toBe(200)
      expect((await init(server, req, 100)).status).toBe(409)
      // As after a crash: the sessions are not ended, so their reservations stay in the database.
      const { sessions, chunkSessions } = server.service.services
      sessions.suspendAll = () => Promise.resolve()
      if (chunkSessions) chunkSessions.endHeld = () => Promise.resolve()
      await server.close({ keepData: true })
      const db = await reopenDatabase(server.dataDir)
      expect(await querySql(db, 'SELECT reserved_uploads AS n FROM file_requests')).toEqual([
        { n: 3 },
      ])
      // A session whose row is gone (it ended, but its slot was not returned) cannot resume.
      await forgetSessionRows(db, gone)
      await db.close()

      // Past the lapse of the dead instance's hold, which PostgreSQL waits for (another instance
      // may still hold it); SQLite's single instance drops the old holds at start.
      const later = manualClock(Date.now() + HOLD_LAPSE_MS + 1000)
      server = await startTestServer({ env: ENV, dataDir: server.dataDir, clock: later })
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(2)
      expect((await chunk(server, req, gone, 0, randomBytes(50))).status).toBe(404)
      expect((await chunk(server, req, plain, 1, randomBytes(50))).status).toBe(404)
      // The other continues at its next chunk and finishes.
      const rest = randomBytes(50)
      expect((await chunk(server, req, kept, 1, rest)).status).toBe(200)
      expect((await finalize(server, req, kept, finalizeBody())).status).toBe(200)
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(2)
    } finally {
      await server.close()
    }
  })

  // Spec: Upload slot inside a request, "server restart" frees a reserved slot; ours to resume.
  it('frees at a restart the slots and quota of uploads whose clients did not ask to resume, on both transports', async () => {
    const env = { ...ENV, FILE_UPLOAD_QUOTA_BYTES: '1MB' }
    let server = await startTestServer({ env })
    const ip = nextIp()
    const remaining = async () =>
      (await call(server, 'GET', '/quota', { ip })).body.remainingBytes as number
    const req = await createRequest(server, { maxUploads: 5 })
    const socketUrl = () => `${server.url.replace(/^http/, 'ws')}/api/request/${req.id}/upload/ws`
    try {
      const full = await remaining()
      const keptHttp = await initOk(server, req, 100, RESUMABLE, ip)
      const plainHttp = await initOk(server, req, 100, {}, ip)
      expect((await chunk(server, req, keptHttp, 0, randomBytes(50))).status).toBe(200)
      expect((await chunk(server, req, plainHttp, 0, randomBytes(50))).status).toBe(200)
      const openSocket = async (asked: { resumable?: true }) => {
        const socket = await TestSocket.open(socketUrl(), { headers: { 'X-Forwarded-For': ip } })
        const request = { uploadToken: req.uploadToken, salt: b64u(32), contentLength: 100 }
        const id = await socket.init({ type: 'init', request, ...asked })
        socket.sendBytes(randomBytes(50))
        return { socket, id }
      }
      const keptWs = await openSocket({ resumable: true })
      const plainWs = await openSocket({})
      const anySession = (_context: unknown): _context is unknown => true
      const { sessions } = server.service.services
      for (const { id } of [keptWs, plainWs]) {
        await expect.poll(() => sessions.get(id, anySession)?.bytesAccepted).toBe(50)
      }
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(1)
      expect(await remaining()).toBe(full - 400)

      await server.close({ keepData: true })
      await keptWs.socket.closed
      await plainWs.socket.closed
      server = await startTestServer({ env, dataDir: server.dataDir })
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(3)
      expect(await remaining()).toBe(full - 200)
      expect((await chunk(server, req, plainHttp, 1, randomBytes(50))).status).toBe(404)
      const refused = await TestSocket.open(socketUrl())
      expect(await refused.refusal({ type: 'resume', uploadId: plainWs.id, offset: 0 })).toEqual({
        type: 'error',
        message: ERROR_MESSAGES.uploadNotFound,
        status: 404,
      })

      // Those that asked go on where they stopped.
      expect((await chunk(server, req, keptHttp, 1, randomBytes(50))).status).toBe(200)
      expect((await finalize(server, req, keptHttp, finalizeBody())).status).toBe(200)
      const resumed = await TestSocket.open(socketUrl())
      resumed.sendJson({ type: 'resume', uploadId: keptWs.id, offset: 50 })
      const ready = await resumed.waitFor('ready')
      resumed.sendBytes(randomBytes(100 - (ready.offset as number)))
      resumed.sendJson({ type: 'finalize', ...finalizeBody() })
      expect(await resumed.waitFor('done')).toEqual({ type: 'done', id: keptWs.id })
    } finally {
      await server.close()
    }
  }, 60_000)
})

describe('ENABLED_SERVICES without request', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, ENABLED_SERVICES: 'file,note' } })
  })
  afterAll(() => server.close())

  it('answers 403 on every request and inbox route and reports fileRequestsEnabled false', async () => {
    const id = crypto.randomUUID()
    const uid = crypto.randomUUID()
    const routes: Array<[string, string]> = [
      ['POST', '/request'],
      ['GET', '/request/limit'],
      ['GET', `/request/${id}`],
      ['POST', `/request/${id}/upload/init`],
      ['POST', `/request/${id}/upload/${uid}/chunk?index=0`],
      ['POST', `/request/${id}/upload/${uid}/finalize`],
      ['DELETE', `/request/${id}/upload/${uid}`],
      ['GET', `/inbox/${id}`],
      ['GET', `/inbox/${id}/file/${uid}`],
      ['DELETE', `/inbox/${id}/file/${uid}`],
      ['POST', `/inbox/${id}/close`],
      ['DELETE', `/inbox/${id}`],
    ]
    for (const [method, path] of routes) {
      const res = await call(server, method, path, method === 'POST' ? { body: requestBody() } : {})
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(res.body).toEqual({ error: ERROR_MESSAGES.fileRequestsDisabled })
    }
    expect((await call(server, 'GET', '/config')).body.fileRequestsEnabled).toBe(false)
    // Other routes are not affected.
    expect((await call(server, 'GET', '/health')).status).toBe(200)
  })

  it('reports fileRequestsEnabled true when enabled', async () => {
    const enabled = await startTestServer({ env: ENV })
    try {
      expect((await call(enabled, 'GET', '/config')).body.fileRequestsEnabled).toBe(true)
    } finally {
      await enabled.close()
    }
  })
})

describe('creation settings', () => {
  it('requires hasPassword with FORCE_REQUEST_PASSWORD', async () => {
    const server = await startTestServer({ env: { ...ENV, FORCE_REQUEST_PASSWORD: 'true' } })
    try {
      const res = await call(server, 'POST', '/request', { body: requestBody() })
      expect(res.status).toBe(400)
      expect(res.body.details).toHaveProperty('hasPassword')
      await createRequest(server, { hasPassword: true })
    } finally {
      await server.close()
    }
  })

  it('needs a login for creation and the limit with OIDC_PROTECT_REQUESTS, not for reading', async () => {
    const server = await startTestServer({
      env: {
        ...ENV,
        OIDC_ISSUER: 'https://id.example.com',
        OIDC_CLIENT_ID: 'fileshare',
        OIDC_CLIENT_SECRET: 'secret',
        OIDC_SESSION_SECRET: 'a'.repeat(32),
        OIDC_PROTECT_REQUESTS: 'true',
      },
    })
    try {
      expect((await call(server, 'POST', '/request', { body: requestBody() })).status).toBe(401)
      expect((await call(server, 'GET', '/request/limit')).status).toBe(401)
      const id = crypto.randomUUID()
      const read = await call(server, 'GET', `/request/${id}`, {
        headers: { 'X-Upload-Token': b64u(32) },
      })
      expect(read.status).toBe(404)
    } finally {
      await server.close()
    }
  })
})

describe('rate limit', () => {
  it('lets chunk requests of request uploads skip it, and only those', async () => {
    // A clock that stands still, so the sliding window cannot move during the test.
    const server = await startTestServer({
      clock: manualClock(),
      env: { ...ENV, RATE_LIMIT_MAX: '4' },
    })
    try {
      const req = await createRequest(server)
      const uid = await initOk(server, req, 10 * 100)
      for (let i = 0; i < 10; i++) {
        const res = await chunk(server, req, uid, i, randomBytes(100))
        expect(res.status).toBe(200)
        expect(res.headers.get('x-ratelimit-limit')).toBeNull()
      }
      // Two requests counted so far; chunks of an unknown session are counted like any route.
      expect((await chunk(server, req, crypto.randomUUID(), 0, randomBytes(1))).status).toBe(404)
      expect((await finalize(server, req, uid, finalizeBody())).status).toBe(200)
      expect((await readRequest(server, req)).status).toBe(429)
    } finally {
      await server.close()
    }
  })
})
