/**
 * An upload session of the stream writer, on a real filesystem store: bytes appended in order
 * become the blob at commit, and a commit short of the declared size ends the session, leaving
 * no blob.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { openSqlite, type SqliteDb } from '../db/sqlite.js'
import { HttpError } from '../http-error.js'
import { FilesystemBlobStore } from '../storage/filesystem.js'
import { SessionHoldEnds } from './session-holds.js'
import { SessionRecords } from './session-records.js'
import type { UploadSession } from './upload-session.js'
import { UploadSessions } from './upload-sessions.js'

const text = (value: string) => new TextEncoder().encode(value)

describe('upload session', () => {
  let dataDir: string
  let blobs: FilesystemBlobStore
  let sessions: UploadSessions
  let db: SqliteDb

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fileshare-session-'))
    blobs = await FilesystemBlobStore.open(dataDir)
    db = await openSqlite(dataDir)
    // These sessions hold no quota and no slot: their holds' end is the transaction alone.
    const quota = { endHold: () => Promise.reject(new Error('no quota is held')) }
    const holdEnds = new SessionHoldEnds(db, blobs, quota)
    const records = new SessionRecords(db, Date.now)
    sessions = new UploadSessions({ blobs, holdEnds, records })
  })
  afterEach(async () => {
    sessions.stop()
    await db.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  const open = (declaredSize: number) =>
    sessions.create({ declaredSize, context: null, idleMs: null }, () =>
      Promise.resolve({ quota: null, slot: null }),
    )
  const commit = (session: UploadSession) =>
    session.finish(
      () => Promise.resolve(),
      () => Promise.resolve(),
    )

  it('commits the bytes appended in order as the blob', async () => {
    const session = await open(6)
    await session.append(text('abc'))
    await session.append(text('def'))
    await commit(session)
    expect(session.state).toBe('committed')
    expect(await new Response(await blobs.read(session.id)).text()).toBe('abcdef')
  })

  it('refuses a commit short of the declared size, and leaves no blob', async () => {
    const session = await open(6)
    await session.append(text('abc'))
    const refused = await commit(session).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(HttpError)
    expect((refused as HttpError).status).toBe(400)
    expect((refused as HttpError).message).toBe(ERROR_MESSAGES.sizeMismatch)
    expect(session.state).toBe('aborted')
    await expect(blobs.read(session.id)).rejects.toThrow()
  })
})
