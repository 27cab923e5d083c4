/**
 * Slots kept for senders' notes (ours: `senderNotes` at creation, `X-Sender-Note` at init): a
 * request for one upload with a note takes one files upload and one note, never two files
 * uploads; a request created without them keeps the spec's meaning exactly.
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { manualClock, reopenDatabase, startTestServer, type TestServer } from './harness.js'
import { HOLD_LAPSE_MS } from '../src/sessions/session-records.js'
import {
  call,
  chunk,
  createRequest,
  ENV,
  finalize,
  finalizeBody,
  forgetSessionRows,
  inbox,
  init,
  initOk,
  readRequest,
  requestBody,
  send,
} from './requests.suite.js'

const NOTE = { 'X-Sender-Note': 'true' }

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ env: ENV })
})

afterAll(async () => {
  await server.close()
})

/** Sends a note of `size` bytes into `req` as one chunk; answers its id. */
async function sendNote(req: Parameters<typeof init>[1], size = 20): Promise<string> {
  const answer = await init(server, req, size, NOTE)
  expect(answer.status, JSON.stringify(answer.body)).toBe(201)
  const id = answer.body.id as string
  expect((await chunk(server, req, id, 0, randomBytes(size))).status).toBe(200)
  expect((await finalize(server, req, id, finalizeBody())).status).toBe(200)
  return id
}

describe('a request with slots kept for notes', () => {
  it('takes one files upload and its note, and refuses a second files upload', async () => {
    const req = await createRequest(server, { maxUploads: 2, senderNotes: true })
    expect((await readRequest(server, req)).body).toMatchObject({ uploadsLeft: 1, notesLeft: 1 })
    await send(server, req, 100)
    // The requester asked for one upload: files alone used it, whoever sends next.
    expect((await readRequest(server, req)).body).toMatchObject({ uploadsLeft: 0, notesLeft: 1 })
    const second = await init(server, req, 100)
    expect(second.status).toBe(409)
    expect(second.body).toEqual({ error: ERROR_MESSAGES.requestFull })
    await sendNote(req)
    expect((await readRequest(server, req)).body).toMatchObject({ uploadsLeft: 0, notesLeft: 0 })
    expect((await init(server, req, 10, NOTE)).status).toBe(409)
    expect((await inbox(server, req)).body).toMatchObject({
      maxUploads: 2,
      usedUploads: 2,
      usedNotes: 1,
      usedBytes: 120,
    })
  })

  it('gives one note slot to one of many concurrent note inits, and the files slot stays', async () => {
    const req = await createRequest(server, { maxUploads: 2, senderNotes: true })
    const answers = await Promise.all(Array.from({ length: 10 }, () => init(server, req, 10, NOTE)))
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9)
    expect((await readRequest(server, req)).body).toMatchObject({ uploadsLeft: 1, notesLeft: 0 })
    await send(server, req, 10)
  })

  it('returns a cancelled note its own slot', async () => {
    const req = await createRequest(server, { maxUploads: 2, senderNotes: true })
    const uid = await init(server, req, 10, NOTE).then((a) => a.body.id as string)
    expect((await readRequest(server, req)).body).toMatchObject({ uploadsLeft: 1, notesLeft: 0 })
    expect((await call(server, 'DELETE', `/request/${req.id}/upload/${uid}`)).status).toBe(200)
    expect((await readRequest(server, req)).body).toMatchObject({ uploadsLeft: 1, notesLeft: 1 })
  })

  it('refuses senderNotes unless maxUploads is twice an option', async () => {
    const res = await call(server, 'POST', '/request', {
      body: requestBody({ maxUploads: 3, senderNotes: true }),
    })
    expect(res.status).toBe(400)
    expect(res.body.details).toMatchObject({ maxUploads: expect.any(String) })
    const notBoolean = await call(server, 'POST', '/request', {
      body: requestBody({ maxUploads: 2, senderNotes: 'yes' }),
    })
    expect(notBoolean.status).toBe(400)
    expect(notBoolean.body.details).toMatchObject({ senderNotes: expect.any(String) })
  })
})

describe('a request created as the spec describes it', () => {
  it('takes any upload in any slot and answers no field of ours', async () => {
    const req = await createRequest(server, { maxUploads: 2 })
    expect(Object.keys((await readRequest(server, req)).body).sort()).toEqual(
      ['brief', 'closesAt', 'maxFilesPerUpload', 'maxUploadSize', 'open', 'uploadsLeft'].sort(),
    )
    await send(server, req, 100)
    await sendNote(req)
    expect((await readRequest(server, req)).body.uploadsLeft).toBe(0)
    const box = (await inbox(server, req)).body
    expect(box).toMatchObject({ maxUploads: 2, usedUploads: 2 })
    expect(box).not.toHaveProperty('usedNotes')
  })

  it('refuses an X-Sender-Note that is not true or false', async () => {
    const req = await createRequest(server, { maxUploads: 2 })
    expect((await init(server, req, 10, { 'X-Sender-Note': 'yes' })).status).toBe(400)
  })
})

describe('restart', () => {
  it('keeps the note slot of a note that may resume, and frees one no session holds', async () => {
    let own = await startTestServer({ env: ENV })
    try {
      const req = await createRequest(own, { maxUploads: 6, senderNotes: true })
      // Sessions that asked to resume: a restart keeps them (one loses its row below).
      const resumable = { ...NOTE, 'X-Resumable': 'true' }
      const kept = await init(own, req, 100, resumable).then((a) => a.body.id as string)
      const gone = await init(own, req, 100, resumable).then((a) => a.body.id as string)
      await initOk(own, req, 100)
      expect((await chunk(own, req, kept, 0, randomBytes(50))).status).toBe(200)
      expect((await readRequest(own, req)).body).toMatchObject({ uploadsLeft: 2, notesLeft: 1 })
      // As after a crash: the sessions are not ended, so their reservations stay.
      own.service.services.sessions.suspendAll = () => Promise.resolve()
      await own.close({ keepData: true })
      const db = await reopenDatabase(own.dataDir)
      await forgetSessionRows(db, gone)
      await db.close()

      const later = manualClock(Date.now() + HOLD_LAPSE_MS + 1000)
      own = await startTestServer({ env: ENV, dataDir: own.dataDir, clock: later })
      // The files-only session did not ask to resume, so the restart ended it as well.
      expect((await readRequest(own, req)).body).toMatchObject({ uploadsLeft: 3, notesLeft: 2 })
      expect((await chunk(own, req, kept, 1, randomBytes(50))).status).toBe(200)
      expect((await finalize(own, req, kept, finalizeBody())).status).toBe(200)
      expect((await inbox(own, req)).body).toMatchObject({ usedUploads: 1, usedNotes: 1 })
    } finally {
      await own.close()
    }
  })
})
