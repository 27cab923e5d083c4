/**
 * An upload session held in memory, on a real filesystem store: the steps of a chunk request are
 * reachable only through the intake its chunk order hands out, chunks reach the writer in index
 * order, and a commit waits for no chunk that is still arriving.
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
import { sessionLimits } from './session-limits.js'
import type { UploadSession } from './upload-session.js'
import { UploadSessions } from './upload-sessions.js'

/** What a chunk intake does to its session, which no route or socket may do. */
const CHUNK_STEPS = [
  'maxChunkSize',
  'reserveBytes',
  'unreserveBytes',
  'reserveBuffer',
  'releaseBuffer',
  'stream',
  'streamed',
  'buffered',
  'released',
]

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
    sessions = new UploadSessions({ blobs, holdEnds: new SessionHoldEnds(db, quota) })
  })
  afterEach(async () => {
    sessions.stop()
    await db.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  const open = (declaredSize: number) =>
    sessions.create(
      {
        declaredSize,
        context: null,
        limits: sessionLimits({ fileUploadConcurrentChunks: 4, fileUploadSpeedLimit: 0 }, 1024),
        idleMs: null,
      },
      { quota: null, slot: null },
    )
  const commit = (session: UploadSession) =>
    session.commit(
      () => Promise.resolve(),
      () => Promise.resolve(),
    )

  it('keeps the steps of a chunk request off the session: only its intake takes them', async () => {
    const session = await open(6)
    for (const step of CHUNK_STEPS) expect(step in session, step).toBe(false)
  })

  it('writes a chunk that came before its predecessor after it, in index order', async () => {
    const session = await open(6)
    const late = session.admitChunk(1, 3)
    late.take(text('def'))
    // Held in memory for its turn: nothing is written yet.
    expect(await late.finish()).toBe(0)
    late.end()
    const first = session.admitChunk(0, 3)
    await first.take(text('abc'))
    await first.finish()
    first.end()
    await commit(session)
    expect(session.state).toBe('committed')
    expect(await new Response(await blobs.read(session.id)).text()).toBe('abcdef')
  })

  it('refuses a commit while a chunk is still arriving, though every byte is written', async () => {
    const session = await open(3)
    const chunk = session.admitChunk(0, 3)
    await chunk.take(text('abc'))
    expect(session.bytesWritten).toBe(3)
    const refused = await commit(session).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(HttpError)
    expect((refused as HttpError).status).toBe(400)
    expect((refused as HttpError).message).toBe(ERROR_MESSAGES.sizeMismatch)
    chunk.end()
    expect(session.state).toBe('aborted')
    await expect(blobs.read(session.id)).rejects.toThrow()
  })
})
