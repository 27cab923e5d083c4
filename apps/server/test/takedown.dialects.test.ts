/**
 * A takedown stays (docs/operations.md, Abuse reports and takedown): the owner's DELETE of an
 * upload, note or request the operator removed answers the same 410 as every other route of the
 * id, and the tombstone is kept, so the id goes on answering 410 rather than 404.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { decodeQuotaHold } from '../src/sessions/session-holds.js'
import type { TombstoneKind } from '../src/records/tombstones.js'
import { noteBody, startTestServer, uploadHeaders, type TestServer } from './harness.js'
import { querySql } from './dialects.js'
import { call, chunk, createRequest, ENV, initOk } from './requests.suite.js'

const REASON = 'Copyright complaint'
const TAKEDOWN = { error: 'Removed by the operator', reason: 'removed', takedown: REASON }

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: ENV })
})
afterAll(async () => {
  await server?.close()
})

async function takeDown(id: string): Promise<void> {
  expect(await server.service.services.takedown.remove(id, REASON)).toBeDefined()
}

async function tombstoneKept(kind: TombstoneKind, id: string): Promise<boolean> {
  return (await server.service.services.tombstones.find(kind, id))?.removedAt != null
}

describe('deleting what the operator took down', () => {
  // Security: the owner token cannot undo a takedown; the id keeps answering the operator's 410.
  it('answers 410 to the owner of an upload and keeps the tombstone', async () => {
    const headers = uploadHeaders(1000, {}, 'Content-Length')
    const ownerToken = headers['X-Owner-Token']!
    const uploaded = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers,
      body: randomBytes(1000),
    })
    expect(uploaded.status).toBe(200)
    const { id } = (await uploaded.json()) as { id: string }
    await takeDown(id)

    for (const token of [ownerToken, undefined]) {
      const headers: Record<string, string> = token ? { 'X-Owner-Token': token } : {}
      const deleted = await call(server, 'DELETE', `/upload/${id}`, { headers })
      expect({ status: deleted.status, body: deleted.body }).toEqual({
        status: 410,
        body: TAKEDOWN,
      })
    }
    expect(await tombstoneKept('upload', id)).toBe(true)
    expect(await call(server, 'GET', `/info/${id}`)).toMatchObject({ status: 410, body: TAKEDOWN })
  })

  it('answers 410 to the owner of a note and keeps the tombstone', async () => {
    const note = noteBody()
    const created = await call(server, 'POST', '/note', { body: note })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    await takeDown(id)

    const headers = { 'X-Owner-Token': note.ownerToken as string }
    const deleted = await call(server, 'DELETE', `/note/${id}`, { headers })
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 410, body: TAKEDOWN })
    expect(await tombstoneKept('note', id)).toBe(true)
    expect(await call(server, 'GET', `/note/${id}`)).toMatchObject({ status: 410, body: TAKEDOWN })
  })

  it('answers 410 to the owner of a request and to a cancel in it, and keeps the tombstone', async () => {
    const req = await createRequest(server)
    const running = await initOk(server, req, 500)
    await takeDown(req.id)

    const headers = { 'X-Inbox-Owner-Token': req.ownerToken }
    const deleted = await call(server, 'DELETE', `/inbox/${req.id}`, { headers })
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 410, body: TAKEDOWN })
    // A chunked upload running into it ended with the takedown: its cancel, as any other id's,
    // answers the request's 410.
    for (const uid of [running, randomUUID()]) {
      const cancel = await call(server, 'DELETE', `/request/${req.id}/upload/${uid}`)
      expect({ status: cancel.status, body: cancel.body }).toEqual({ status: 410, body: TAKEDOWN })
    }
    expect(await tombstoneKept('request', req.id)).toBe(true)
    expect(await call(server, 'GET', `/request/${req.id}`)).toMatchObject({
      status: 410,
      body: TAKEDOWN,
    })
  })

  it('answers 410 to the status of an upload into a taken-down request', async () => {
    const req = await createRequest(server)
    await takeDown(req.id)
    const status = await call(server, 'GET', `/request/${req.id}/upload/${randomUUID()}/status`)
    expect({ status: status.status, body: status.body }).toEqual({ status: 410, body: TAKEDOWN })
  })

  // Chunked sessions live in the database, waiting between chunks.
  it('ends the chunked uploads into a taken-down request, with their chunks and quota', async () => {
    const req = await createRequest(server)
    const uid = await initOk(server, req, 2000)
    expect((await chunk(server, req, uid, 0, randomBytes(1000))).status).toBe(200)
    const db = server.service.db
    const [row] = await querySql<{ quota: string }>(
      db,
      'SELECT quota FROM upload_sessions WHERE id = ?',
      [uid],
    )
    expect(row).toBeDefined()
    const held = decodeQuotaHold(row!.quota)
    await takeDown(req.id)

    expect(await server.service.services.chunkSessions?.find(uid, req.id)).toBeUndefined()
    const parts = await querySql(db, 'SELECT ref FROM chunk_parts WHERE session_id = ?', [uid])
    expect(parts).toEqual([])
    // The quota held the declared size while the session waited; the takedown gives it back.
    expect(held).not.toBeNull()
    const quota = await querySql<{ held: number | string }>(
      db,
      'SELECT held FROM upload_quota WHERE client_hash = ? AND window_start = ?',
      [held!.clientHash, held!.windowStart],
    )
    expect(quota.map((row) => Number(row.held))).toEqual([0])
    const status = await call(server, 'GET', `/request/${req.id}/upload/${uid}/status`)
    expect({ status: status.status, body: status.body }).toEqual({ status: 410, body: TAKEDOWN })
  })

  // Security: a takedown landing between the owner's look and delete stays (a conditional delete).
  it('keeps a takedown tombstone that the owner deletion reaches after the takedown', async () => {
    const { tombstones, takedown } = server.service.services
    const note = noteBody()
    const created = await call(server, 'POST', '/note', { body: note })
    const id = created.body.id as string
    await takedown.remove(id, REASON)
    await expect(tombstones.remove('note', id)).rejects.toMatchObject({
      status: 410,
      message: 'Removed by the operator',
    })
    expect(await tombstoneKept('note', id)).toBe(true)
  })
})
