/**
 * A session's holds (its quota hold and, in a request, its slot) end exactly once, in the step
 * that ends the session (sessions/session-holds.ts): a failure injected where an upload's bytes
 * are recorded in the quota, as a crash at that point, must leave no record and nothing held,
 * for a single-request upload, a socket upload and an upload into a request alike; the retry then
 * records the bytes once.
 */
import { randomBytes } from 'node:crypto'

import { toBase64Url } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import type { Db } from '../src/db/client.js'
import { querySql } from './dialects.js'
import { socketInitHeaders, startTestServer, uploadHeaders, type TestServer } from './harness.js'
import {
  chunk,
  createRequest,
  ENV,
  finalize,
  finalizeBody,
  initOk,
  nextIp,
  readRequest,
} from './requests.suite.js'

type Created = Awaited<ReturnType<typeof createRequest>>
import { TestSocket } from './test-socket.js'

const SIZE = 64 * 1024
const POLL = { timeout: 15_000, interval: 25 }

/**
 * Makes every statement that records bytes in the quota fail, as a process dying at that step
 * would: giving held bytes back (which records none) still passes.
 */
async function crashWhereBytesAreRecorded(db: Db): Promise<void> {
  if (db.dialect === 'sqlite') {
    await querySql(
      db,
      `CREATE TRIGGER crash_at_record BEFORE UPDATE ON upload_quota
       WHEN NEW.bytes > OLD.bytes BEGIN SELECT RAISE(ABORT, 'crash at record'); END`,
    )
    return
  }
  await querySql(
    db,
    `CREATE FUNCTION crash_at_record() RETURNS trigger LANGUAGE plpgsql
     AS $$ BEGIN RAISE EXCEPTION 'crash at record'; END $$`,
  )
  await querySql(
    db,
    `CREATE TRIGGER crash_at_record BEFORE UPDATE ON upload_quota FOR EACH ROW
     WHEN (NEW.bytes > OLD.bytes) EXECUTE FUNCTION crash_at_record()`,
  )
}

async function recover(db: Db): Promise<void> {
  await querySql(
    db,
    db.dialect === 'sqlite'
      ? 'DROP TRIGGER crash_at_record'
      : 'DROP TRIGGER crash_at_record ON upload_quota',
  )
}

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
    sessions: (await count('streamed_sessions')) + (await count('chunk_sessions')),
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

/** A whole upload into request `req` over the request socket; answers whether it got `done`. */
async function requestSocketUpload(
  server: TestServer,
  req: { id: string; uploadToken: string },
  ip: string,
): Promise<boolean> {
  const url = `${server.url.replace(/^http/, 'ws')}/api/request/${req.id}/upload/ws`
  const socket = await TestSocket.open(url, { headers: { 'X-Forwarded-For': ip } })
  const request = {
    uploadToken: req.uploadToken,
    salt: toBase64Url(randomBytes(32)),
    contentLength: SIZE,
    fileCount: 1,
  }
  await socket.init({ type: 'init', request, resumable: true })
  socket.sendBytes(randomBytes(SIZE))
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

  beforeEach(async () => {
    server = await startTestServer({ env: ENV })
    db = server.service.db
  })
  afterEach(() => server.close())

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
})
