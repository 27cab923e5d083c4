/**
 * A session's holds (its quota hold and, in a request, its slot) end exactly once, in the step
 * that ends the session (sessions/session-holds.ts): a failure injected where an upload's bytes
 * are recorded in the quota, as a crash at that point, must leave no record and nothing held,
 * for a single-request upload, a socket upload and an upload into a request alike; the retry then
 * records the bytes once. A session whose row cannot be written holds nothing. An abort whose row
 * could not be deleted leaves its holds to the path that ends the session later, which gives them
 * back once; a finalize racing the idle expiry of its session records the upload with its holds,
 * or not at all.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { REQUEST_HTTP_SESSION_TIMEOUT_MS, toBase64Url } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import type { Db } from '../src/db/client.js'
import { querySql, TEST_DIALECT } from './dialects.js'
import { crashAt, recoverFrom } from './db-faults.js'
import { blobFiles } from './backends.js'
import {
  errorCapturingLogger,
  manualClock,
  socketInitHeaders,
  startTestServer,
  uploadHeaders,
  type TestServer,
} from './harness.js'
import {
  call,
  chunk,
  createRequest,
  ENV,
  finalize,
  finalizeBody,
  init,
  initOk,
  nextIp,
  readRequest,
} from './requests.suite.js'

type Created = Awaited<ReturnType<typeof createRequest>>
import { TestSocket } from './test-socket.js'

const SIZE = 64 * 1024
const POLL = { timeout: 15_000, interval: 25 }

/** Statements that record bytes in the quota fail; giving held bytes back still passes. */
const crashWhereBytesAreRecorded = (db: Db) =>
  crashAt(db, 'crash_at_record', 'UPDATE', 'upload_quota', 'NEW.bytes > OLD.bytes')
const recover = (db: Db) => recoverFrom(db, 'crash_at_record', 'upload_quota')

/** What the quota and the records say: held and recorded bytes, records and session rows. */
async function ledger(db: Db) {
  const count = async (table: string) =>
    Number((await querySql<{ n: number }>(db, `SELECT count(*) AS n FROM ${table}`))[0]!.n)
  const [quota] = await querySql<{ held: number | null; bytes: number | null }>(
    db,
    'SELECT sum(held) AS held, sum(bytes) AS bytes FROM upload_quota',
  )
  return {
    held: Number(quota?.held ?? 0),
    recorded: Number(quota?.bytes ?? 0),
    records: (await count('uploads')) + (await count('request_uploads')),
    sessions: await count('upload_sessions'),
  }
}

/** A whole upload over the upload socket; answers whether the server said `done`. */
async function socketUpload(server: TestServer, ip: string): Promise<boolean> {
  const url = `${server.url.replace(/^http/, 'ws')}/api/upload/ws`
  const socket = await TestSocket.open(url, { headers: { 'X-Forwarded-For': ip } })
  await socket.init({ type: 'init', headers: socketInitHeaders(SIZE), resumable: true })
  socket.sendBytes(randomBytes(SIZE))
  socket.sendJson({ type: 'finalize' })
  return socketEnd(socket)
}

/** Opens an upload into request `req` over the request socket and sends its bytes. */
async function openRequestSocket(
  server: TestServer,
  req: { id: string; uploadToken: string },
  ip: string,
): Promise<{ id: string; socket: TestSocket }> {
  const url = `${server.url.replace(/^http/, 'ws')}/api/request/${req.id}/upload/ws`
  const socket = await TestSocket.open(url, { headers: { 'X-Forwarded-For': ip } })
  const request = {
    uploadToken: req.uploadToken,
    salt: toBase64Url(randomBytes(32)),
    contentLength: SIZE,
    fileCount: 1,
  }
  const id = await socket.init({ type: 'init', request, resumable: true })
  socket.sendBytes(randomBytes(SIZE))
  return { id, socket }
}

/** A whole upload into request `req` over the request socket; answers whether it got `done`. */
async function requestSocketUpload(
  server: TestServer,
  req: { id: string; uploadToken: string },
  ip: string,
): Promise<boolean> {
  const { socket } = await openRequestSocket(server, req, ip)
  socket.sendJson({ type: 'finalize', ...finalizeBody() })
  return socketEnd(socket)
}

/** True once the socket says `done`, false when it closes first. */
async function socketEnd(socket: TestSocket): Promise<boolean> {
  const end = await Promise.race([
    socket.waitFor('done').then(() => true),
    socket.closed.then(() => false),
  ])
  socket.ws.close()
  return end
}

/** A single-request upload; answers its status. */
async function singleUpload(server: TestServer, ip: string): Promise<number> {
  const headers = { ...uploadHeaders(SIZE, {}, 'Content-Length'), 'X-Forwarded-For': ip }
  const res = await fetch(`${server.url}/api/upload`, {
    method: 'POST',
    headers,
    body: randomBytes(SIZE),
  })
  await res.arrayBuffer()
  return res.status
}

describe('the holds of a session end in the step that ends it', () => {
  let server: TestServer
  let db: Db
  let errors: string[]

  beforeEach(async () => {
    const capture = errorCapturingLogger()
    errors = capture.errors
    server = await startTestServer({ env: ENV, logger: capture.logger })
    db = server.service.db
  })
  afterEach(() => server.close())

  /** Starts the server again on a clock the test moves. */
  async function restartWithClock() {
    const clock = manualClock()
    await server.close()
    server = await startTestServer({ env: ENV, clock })
    db = server.service.db
    return clock
  }

  /** A request with a session of each writer under way: a socket's and a chunked one's. */
  async function sessionsOfBothWriters() {
    const req = await createRequest(server, { maxUploads: 3 })
    const ip = nextIp()
    const streamed = await openRequestSocket(server, req, ip)
    const chunked = await initOk(server, req, SIZE, {}, ip)
    expect((await chunk(server, req, chunked, 0, randomBytes(SIZE / 2))).status).toBe(200)
    await expect.poll(() => ledger(db), POLL).toMatchObject({ held: 2 * SIZE, sessions: 2 })
    return { req, streamed }
  }

  it('a single-request upload whose record fails keeps nothing: no record, nothing held', async () => {
    const ip = nextIp()
    await crashWhereBytesAreRecorded(db)
    expect(await singleUpload(server, ip)).toBe(500)
    expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
    await recover(db)
    expect(await singleUpload(server, ip)).toBe(200)
    expect(await ledger(db)).toEqual({ held: 0, recorded: SIZE, records: 1, sessions: 0 })
  })

  it('a socket upload whose record fails keeps nothing: no record, no row, nothing held', async () => {
    const ip = nextIp()
    await crashWhereBytesAreRecorded(db)
    expect(await socketUpload(server, ip)).toBe(false)
    await expect.poll(() => server.service.services.sessions.size, POLL).toBe(0)
    expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
    await recover(db)
    expect(await socketUpload(server, ip)).toBe(true)
    expect(await ledger(db)).toEqual({ held: 0, recorded: SIZE, records: 1, sessions: 0 })
  })

  const reservedSlots = async (id: string) =>
    Number(
      (
        await querySql<{ n: number }>(
          db,
          `SELECT reserved_uploads AS n FROM file_requests WHERE id = '${id}'`,
        )
      )[0]!.n,
    )

  /** No session row can be written, and no held byte given back, as while the database is away. */
  async function refuseSessionsAndReleases() {
    await crashAt(db, 'crash_at_session', 'INSERT', 'upload_sessions', '1 = 1')
    await crashAt(db, 'crash_at_release', 'UPDATE', 'upload_quota', 'NEW.held < OLD.held')
  }
  async function answerAgain() {
    await recoverFrom(db, 'crash_at_session', 'upload_sessions')
    await recoverFrom(db, 'crash_at_release', 'upload_quota')
  }

  // The holds are taken in the transaction that writes the session's row: a row that cannot be
  // written leaves nothing held, with nothing waiting in memory to be given back.
  it('a socket upload whose session cannot open holds nothing', async () => {
    await refuseSessionsAndReleases()
    await expect(socketUpload(server, nextIp())).rejects.toThrow(/Internal server error/)
    expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
    await answerAgain()
    expect(await socketUpload(server, nextIp())).toBe(true)
    expect(await ledger(db)).toEqual({ held: 0, recorded: SIZE, records: 1, sessions: 0 })
  })

  it('a chunked upload whose session cannot open holds nothing', async () => {
    await refuseSessionsAndReleases()
    const headers = uploadHeaders(SIZE)
    const opened = await call(server, 'POST', '/upload/init', { headers, ip: nextIp() })
    expect(opened.status).toBe(500)
    expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
  })

  it('a chunked upload into a request whose session cannot open holds no slot and no quota', async () => {
    const req = await createRequest(server, { maxUploads: 1 })
    await refuseSessionsAndReleases()
    expect((await init(server, req, SIZE, {}, nextIp())).status).toBe(500)
    expect(await reservedSlots(req.id)).toBe(0)
    expect(await ledger(db)).toMatchObject({ held: 0, sessions: 0 })
    await answerAgain()
    expect((await init(server, req, SIZE, {}, nextIp())).status).toBe(201)
    expect(await reservedSlots(req.id)).toBe(1)
  })

  const uploadsIntoRequests = [
    {
      name: 'chunked',
      async upload(server: TestServer, req: Created, ip: string): Promise<boolean> {
        const id = await initOk(server, req, SIZE, {}, ip)
        expect((await chunk(server, req, id, 0, randomBytes(SIZE))).status).toBe(200)
        return (await finalize(server, req, id, finalizeBody())).status === 200
      },
    },
    { name: 'socket', upload: requestSocketUpload },
  ]

  it.each(uploadsIntoRequests)(
    'a $name upload into a request whose record fails frees its slot and its quota once',
    async ({ upload: send }) => {
      const req = await createRequest(server, { maxUploads: 1 })
      const ip = nextIp()
      const upload = () => send(server, req, ip)
      await crashWhereBytesAreRecorded(db)
      expect(await upload()).toBe(false)
      await expect.poll(() => server.service.services.sessions.size, POLL).toBe(0)
      expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
      const slots = () =>
        querySql(db, 'SELECT reserved_uploads AS reserved, used_uploads AS used FROM file_requests')
      expect(await slots()).toEqual([{ reserved: 0, used: 0 }])
      // The one slot is free again: the retry takes it and finishes.
      await recover(db)
      expect(await upload()).toBe(true)
      expect(await ledger(db)).toEqual({ held: 0, recorded: SIZE, records: 1, sessions: 0 })
      expect(await slots()).toEqual([{ reserved: 0, used: 1 }])
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(0)
    },
  )

  // Two paths ending one session: the holds end with the row, so an abort whose row could not be
  // deleted leaves its holds to the later end, which gives them back once, not a second time
  // out of another upload's.
  it('an abort that fails midway is ended once by a later cancel: another upload keeps its hold', async () => {
    const req = await createRequest(server, { maxUploads: 3 })
    const ip = nextIp()
    const first = await openRequestSocket(server, req, ip)
    const second = await openRequestSocket(server, req, ip)
    await expect.poll(() => ledger(db), POLL).toMatchObject({ held: 2 * SIZE, sessions: 2 })
    await crashAt(db, 'crash_at_delete', 'DELETE', 'upload_sessions', `OLD.id = '${first.id}'`)
    // The client aborts: the end's delete fails, and the abort discards the bytes.
    first.socket.ws.close(1000)
    await expect.poll(() => errors.join(''), POLL).toContain('delete from "upload_sessions"')
    const partial = async () =>
      (await blobFiles(server)).partial.some((n) => n.startsWith(first.id))
    await expect.poll(partial, POLL).toBe(false)
    await recoverFrom(db, 'crash_at_delete', 'upload_sessions')
    const cancelled = await call(server, 'DELETE', `/request/${req.id}/upload/${first.id}`)
    expect(cancelled.status).toBeLessThan(300)
    const slots = () =>
      querySql(db, 'SELECT reserved_uploads AS reserved, used_uploads AS used FROM file_requests')
    // The second upload still holds its slot and its bytes, and nothing else is held.
    expect(await slots()).toEqual([{ reserved: 1, used: 0 }])
    expect(await ledger(db)).toEqual({ held: SIZE, recorded: 0, records: 0, sessions: 1 })
    second.socket.ws.close(1000)
    await expect.poll(() => ledger(db), POLL).toMatchObject({ held: 0, sessions: 0 })
    expect(await slots()).toEqual([{ reserved: 0, used: 0 }])
  })

  // Stored chunk sessions (PostgreSQL): a finalize whose join is done while another path ends
  // the session writes no record, as that path gave the holds back.
  it.runIf(TEST_DIALECT === 'postgres')(
    'a finalize racing the idle expiry of its session records the upload with its holds or not at all',
    async () => {
      const clock = await restartWithClock()
      const blobs = server.service.blobs
      const join = blobs.joinChunks.bind(blobs)
      let joined!: () => void
      const atJoin = new Promise<void>((resolve) => (joined = resolve))
      let goOn!: () => void
      const held = new Promise<void>((resolve) => (goOn = resolve))
      blobs.joinChunks = async (...args) => {
        await join(...args)
        joined()
        await held
      }
      const req = await createRequest(server, { maxUploads: 1 })
      const id = await initOk(server, req, SIZE, {}, nextIp())
      expect((await chunk(server, req, id, 0, randomBytes(SIZE))).status).toBe(200)
      const finalizing = finalize(server, req, id, finalizeBody())
      await atJoin
      clock.advance(REQUEST_HTTP_SESSION_TIMEOUT_MS + 1)
      const { sessions } = server.service.services
      expect(
        await sessions.expireDormant(
          REQUEST_HTTP_SESSION_TIMEOUT_MS,
          REQUEST_HTTP_SESSION_TIMEOUT_MS,
        ),
      ).toBe(1)
      goOn()
      const answer = await finalizing
      const { records, recorded, held: stillHeld } = await ledger(db)
      const [slot] = await querySql<{ reserved: number; used: number }>(
        db,
        'SELECT reserved_uploads AS reserved, used_uploads AS used FROM file_requests',
      )
      // Exactly one end: the record with its bytes and its slot used, or neither.
      expect({ answer: answer.status === 200, recorded, used: slot!.used }).toEqual({
        answer: records === 1,
        recorded: records * SIZE,
        used: records,
      })
      expect({ held: stillHeld, reserved: slot!.reserved }).toEqual({ held: 0, reserved: 0 })
    },
  )

  // The chunk writer keeps sessions in the database on PostgreSQL: there an instance holds rows of
  // both writers at once.
  it.runIf(TEST_DIALECT === 'postgres')(
    "one heartbeat keeps an instance's sessions of both writers, and one sweep ends both",
    async () => {
      const { req, streamed } = await sessionsOfBothWriters()
      const { sessions } = server.service.services
      const beats = async () => {
        const rows = await querySql<{ holder: string | null; beat: number | string }>(
          db,
          'SELECT holder, heartbeat_at AS beat FROM upload_sessions ORDER BY id',
        )
        return rows.map((row) => ({ holder: row.holder, fresh: Number(row.beat) > 0 }))
      }
      await querySql(db, 'UPDATE upload_sessions SET heartbeat_at = 0')
      await sessions.beat()
      const held = { holder: sessions.holder, fresh: true }
      expect(await beats()).toEqual([held, held])

      // As an instance that died leaves them: both held by it, neither to be resumed.
      streamed.socket.ws.terminate()
      await expect.poll(beats, POLL).toContainEqual({ holder: null, fresh: true })
      await querySql(db, "UPDATE upload_sessions SET holder = 'gone', heartbeat_at = 0")
      await querySql(db, 'UPDATE upload_sessions SET resumable = false')
      expect(await sessions.endUnresumable()).toBe(2)
      expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
      expect(await querySql(db, 'SELECT ref FROM chunk_parts')).toEqual([])
      const partial = (await blobFiles(server)).partial.filter((n) => n.startsWith(streamed.id))
      expect(partial).toEqual([])
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(3)
    },
  )

  it("lets the hold lapse on a socket's row its instance no longer has open", async () => {
    // As a suspension and its end that both failed leave it: the row held, the session forgotten.
    const { streamed } = await sessionsOfBothWriters()
    const { sessions, sessionRows: records } = server.service.services
    const row = (await records.find(streamed.id))!
    const lost = randomUUID()
    await records.insert(server.service.db.query, { ...row, id: lost })
    await querySql(db, 'UPDATE upload_sessions SET heartbeat_at = 0')
    await sessions.beat()
    const stale = await querySql<{ id: string }>(
      db,
      'SELECT id FROM upload_sessions WHERE heartbeat_at = 0',
    )
    expect(stale.map((r) => r.id)).toEqual([lost])
  })

  it.runIf(TEST_DIALECT === 'postgres')(
    'one idle expiry ends the idle sessions of both writers, with their holds',
    async () => {
      const clock = await restartWithClock()
      const { req, streamed } = await sessionsOfBothWriters()
      // The socket's session is dormant once its connection's end is recorded.
      streamed.socket.ws.terminate()
      const holders = async () =>
        (await querySql<{ holder: string | null }>(db, 'SELECT holder FROM upload_sessions')).map(
          (row) => row.holder,
        )
      await expect.poll(holders, POLL).toContain(null)

      const idleMs = REQUEST_HTTP_SESSION_TIMEOUT_MS
      clock.advance(idleMs + 1000)
      expect(await server.service.services.sessions.expireDormant(idleMs, idleMs)).toBe(2)
      expect(await ledger(db)).toEqual({ held: 0, recorded: 0, records: 0, sessions: 0 })
      expect(await querySql(db, 'SELECT ref FROM chunk_parts')).toEqual([])
      expect((await readRequest(server, req)).body.uploadsLeft).toBe(3)
    },
  )
})
