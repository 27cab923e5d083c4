/**
 * The cleanup job against the real server with a manual clock: expired and used-up uploads and
 * notes (they go, and their tombstones answer 410 until their retention ends), failed blob
 * removals, orphan blobs, stray partial files and abandoned chunked sessions (spec: What the
 * service does 4 and 5; File upload and Note states).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { toBase64, toBase64Url } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import type { Logger } from '../src/logger.js'
import { EXPIRED_TOKEN_GRACE_MS } from '../src/access/api-tokens.js'
import { CleanupJob, ORPHAN_GRACE_MS, PARTIAL_MARGIN_MS } from '../src/ops/cleanup.js'
import { TOMBSTONE_RETENTION_MS } from '../src/records/tombstones.js'
import {
  manualClock,
  randomToken,
  startTestServer,
  uploadHeaders,
  type ManualClock,
  type TestServer,
} from './harness.js'
import { leaderLock } from '../src/db/leader-lock.js'
import { querySql, TEST_DIALECT } from './dialects.js'

const IDLE_SEC = 60
const HOUR = 3_600_000
const DAY = 24 * HOUR

interface Uploaded {
  id: string
  authToken: string
  ownerToken: string
  body: Uint8Array
}

async function upload(
  server: TestServer,
  overrides: Record<string, string> = {},
  size = 2048,
): Promise<Uploaded> {
  const body = randomBytes(size)
  const headers = uploadHeaders(size, overrides, 'Content-Length')
  const res = await fetch(`${server.url}/api/upload`, { method: 'POST', headers, body })
  expect(res.status, await res.clone().text()).toBe(200)
  const { id } = (await res.json()) as { id: string }
  return {
    id,
    authToken: headers['X-Auth-Token']!,
    ownerToken: headers['X-Owner-Token']!,
    body,
  }
}

function download(server: TestServer, file: Uploaded): Promise<Response> {
  return fetch(`${server.url}/api/download/${file.id}`, {
    headers: { 'X-Auth-Token': file.authToken },
  })
}

async function uploadStatus(server: TestServer, file: Uploaded): Promise<Record<string, unknown>> {
  const info = await fetch(`${server.url}/api/info/${file.id}`)
  const got = await download(server, file)
  const exists = (await (await fetch(`${server.url}/api/exists/${file.id}`)).json()) as {
    exists: boolean
  }
  await got.body?.cancel()
  return { info: info.status, download: got.status, exists: exists.exists }
}

interface Note {
  id: string
  authToken: string
  ownerToken: string
}

async function createNote(server: TestServer, fields: Record<string, unknown> = {}): Promise<Note> {
  const authToken = randomToken()
  const ownerToken = randomToken()
  const res = await fetch(`${server.url}/api/note`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      encryptedContent: toBase64(randomBytes(64)),
      nonce: toBase64(randomBytes(12)),
      salt: toBase64Url(randomBytes(16)),
      ownerToken,
      authToken,
      contentType: 'text',
      maxViews: 1,
      expireSec: 300,
      hasPassword: false,
      ...fields,
    }),
  })
  expect(res.status, await res.clone().text()).toBe(201)
  const { id } = (await res.json()) as { id: string }
  return { id, authToken, ownerToken }
}

/** Whether the database still holds the note's ciphertext. */
async function noteStored(server: TestServer, note: Note): Promise<boolean> {
  return (
    (await querySql(server.service.db, 'SELECT 1 FROM notes WHERE id = ?', [note.id])).length > 0
  )
}

async function noteStatus(server: TestServer, note: Note): Promise<Record<string, number>> {
  const info = await fetch(`${server.url}/api/note/${note.id}`)
  const view = await fetch(`${server.url}/api/note/${note.id}/view`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ authToken: note.authToken }),
  })
  return { info: info.status, view: view.status }
}

async function committedBlobs(server: TestServer): Promise<string[]> {
  const names = await readdir(join(server.dataDir, 'blobs'))
  return names.filter((name) => !name.startsWith('.')).sort()
}

/** Partial blobs, and on PostgreSQL the chunks of sessions kept in the database. */
async function partialFiles(server: TestServer): Promise<string[]> {
  const chunks = await readdir(join(server.dataDir, 'blobs', '.chunks')).catch(() => [])
  return [...(await readdir(join(server.dataDir, 'blobs', '.partial'))), ...chunks]
}

/** Writes a file with a modification time `ageMs` in the past (by the operating system's clock). */
async function writeAged(path: string, ageMs: number): Promise<void> {
  await writeFile(path, randomBytes(100))
  const at = (Date.now() - ageMs) / 1000
  await utimes(path, at, at)
}

/** A logger that keeps every line, to check what the job reports. */
function recordingLogger(): Logger & { lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = []
  const at = (level: string) => (message: string) => void lines.push({ level, message })
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }
}

describe('cleanup job', () => {
  let server: TestServer
  let clock: ManualClock

  beforeEach(async () => {
    clock = manualClock()
    server = await startTestServer({
      clock,
      // Only runOnce() runs the job in these tests.
      env: { CLEANUP_INTERVAL: '86400', UPLOAD_SESSION_IDLE_SEC: String(IDLE_SEC) },
    })
  })

  afterEach(async () => {
    await server.close()
  })

  it('answers 410 for expired uploads and notes before a run and after it, which removes their content', async () => {
    const expired = await upload(server, { 'X-Expire-Sec': '300', 'X-Max-Downloads': '5' })
    const kept = await upload(server, { 'X-Expire-Sec': '3600', 'X-Max-Downloads': '5' })
    const expiredNote = await createNote(server, { expireSec: 300 })
    const keptNote = await createNote(server, { expireSec: 3600, maxViews: 5 })
    clock.advance(300_000)

    expect(await uploadStatus(server, expired)).toEqual({ info: 410, download: 410, exists: false })
    expect(await noteStatus(server, expiredNote)).toEqual({ info: 410, view: 410 })
    expect(await committedBlobs(server)).toEqual([expired.id, kept.id].sort())

    const report = await server.service.cleanup.runOnce()
    expect(report).toMatchObject({
      uploadsRemoved: 1,
      notesRemoved: 1,
      tombstonesPurged: 0,
      blobsQueued: 0,
      failedSteps: [],
    })
    expect(await uploadStatus(server, expired)).toEqual({ info: 410, download: 410, exists: false })
    expect(await noteStatus(server, expiredNote)).toEqual({ info: 410, view: 410 })
    expect(await committedBlobs(server)).toEqual([kept.id])
    expect(await noteStored(server, expiredNote)).toBe(false)
    // The password checks of both answer from the tombstone too (spec: 410 on password check).
    const uploadPassword = await fetch(`${server.url}/api/password/${expired.id}`, {
      method: 'POST',
      headers: { 'X-Auth-Token': expired.authToken },
    })
    expect(uploadPassword.status).toBe(410)
    const notePassword = await fetch(`${server.url}/api/note/${expiredNote.id}/password`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ authToken: expiredNote.authToken }),
    })
    expect(notePassword.status).toBe(410)
    expect(await notePassword.json()).toEqual({ error: 'Note has expired' })
    expect(await noteStored(server, keptNote)).toBe(true)
    // A second run finds nothing more to remove.
    expect(await server.service.cleanup.runOnce()).toMatchObject({
      uploadsRemoved: 0,
      notesRemoved: 0,
    })

    const res = await download(server, kept)
    expect(res.status).toBe(200)
    expect(Buffer.from(await res.arrayBuffer()).equals(kept.body)).toBe(true)
    expect(await noteStatus(server, keptNote)).toEqual({ info: 200, view: 200 })
  })

  it('removes the content of uploads and notes whose download or view limit is used up', async () => {
    const exhausted = await upload(server, { 'X-Max-Downloads': '1' })
    const partlyUsed = await upload(server, { 'X-Max-Downloads': '2' })
    const viewedNote = await createNote(server, { maxViews: 1 })
    expect((await download(server, exhausted)).status).toBe(200)
    expect((await download(server, partlyUsed)).status).toBe(200)
    expect(await noteStatus(server, viewedNote)).toEqual({ info: 200, view: 200 })
    expect(await noteStatus(server, viewedNote)).toEqual({ info: 410, view: 410 })
    expect((await download(server, exhausted)).status).toBe(410)

    const report = await server.service.cleanup.runOnce()
    expect(report).toMatchObject({ uploadsRemoved: 1, notesRemoved: 1 })
    expect(await uploadStatus(server, exhausted)).toEqual({
      info: 410,
      download: 410,
      exists: false,
    })
    expect(await noteStatus(server, viewedNote)).toEqual({ info: 410, view: 410 })
    expect(await noteStored(server, viewedNote)).toBe(false)
    // Its tombstone says why, as the note itself did: used up, and expired once it is.
    const reason = async () =>
      ((await (await fetch(`${server.url}/api/note/${viewedNote.id}`)).json()) as { error: string })
        .error
    expect(await reason()).toBe('View limit reached')
    clock.advance(300_000)
    expect(await reason()).toBe('Note has expired')
    expect(await committedBlobs(server)).toEqual([partlyUsed.id])
    expect((await download(server, partlyUsed)).status).toBe(200)
  })

  it('purges the tombstones of removed uploads and notes once their retention after expiry ends', async () => {
    const file = await upload(server, { 'X-Expire-Sec': '300', 'X-Max-Downloads': '1' })
    const note = await createNote(server, { expireSec: 300 })
    expect((await download(server, file)).status).toBe(200)
    expect(await server.service.cleanup.runOnce()).toMatchObject({
      uploadsRemoved: 1,
      tombstonesPurged: 0,
    })

    // Expired 300 s after creation; the tombstone stays until the retention after that has passed.
    clock.advance(300_000 + TOMBSTONE_RETENTION_MS - 1)
    expect(await server.service.cleanup.runOnce()).toMatchObject({
      notesRemoved: 1,
      tombstonesPurged: 0,
    })
    expect(await uploadStatus(server, file)).toEqual({ info: 410, download: 410, exists: false })
    expect(await noteStatus(server, note)).toEqual({ info: 410, view: 410 })

    clock.advance(1)
    expect(await server.service.cleanup.runOnce()).toMatchObject({ tombstonesPurged: 2 })
    expect(await uploadStatus(server, file)).toEqual({ info: 404, download: 404, exists: false })
    expect(await noteStatus(server, note)).toEqual({ info: 404, view: 404 })
  })

  it('lets the owner delete a removed upload or note for good, and refuses its metadata', async () => {
    const file = await upload(server, { 'X-Expire-Sec': '300' })
    const note = await createNote(server, { expireSec: 300 })
    clock.advance(300_000)
    await server.service.cleanup.runOnce()

    const meta = await fetch(`${server.url}/api/meta/${file.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Owner-Token': file.ownerToken },
      body: JSON.stringify({
        encryptedMeta: toBase64(randomBytes(40)),
        nonce: toBase64(randomBytes(12)),
      }),
    })
    expect(meta.status).toBe(410)
    const deleted = await fetch(`${server.url}/api/upload/${file.id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': file.ownerToken },
    })
    expect(deleted.status).toBe(200)
    const noteDeleted = await fetch(`${server.url}/api/note/${note.id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': note.ownerToken },
    })
    expect(noteDeleted.status).toBe(200)
    expect(await uploadStatus(server, file)).toEqual({ info: 404, download: 404, exists: false })
    expect(await noteStatus(server, note)).toEqual({ info: 404, view: 404 })
  })

  it('retries a blob removal that failed on the next run', async () => {
    const file = await upload(server, { 'X-Expire-Sec': '300' })
    const blobs = server.service.blobs
    const realDelete = blobs.delete.bind(blobs)
    let failures = 1
    blobs.delete = async (key) => {
      if (failures-- > 0) throw new Error('storage unavailable')
      return realDelete(key)
    }
    clock.advance(300_000)

    const first = await server.service.cleanup.runOnce()
    expect(first).toMatchObject({
      uploadsRemoved: 1,
      blobsQueued: 1,
      blobsRetried: 0,
      orphansRemoved: 0,
    })
    // The record goes first: the id answers 410 from its tombstone although its blob is still there.
    expect(await uploadStatus(server, file)).toEqual({ info: 410, download: 410, exists: false })
    expect(await committedBlobs(server)).toEqual([file.id])
    expect([...(await server.service.services.janitor.pending())]).toEqual([file.id])

    const second = await server.service.cleanup.runOnce()
    expect(second).toMatchObject({ uploadsRemoved: 0, blobsRetried: 1 })
    expect(await committedBlobs(server)).toEqual([])
    expect((await server.service.services.janitor.pending()).size).toBe(0)
  })

  it('sweeps an old blob without a record on the second run that finds it, and keeps fresh ones', async () => {
    const blobsDir = join(server.dataDir, 'blobs')
    const orphan = randomUUID()
    const fresh = randomUUID()
    await writeAged(join(blobsDir, orphan), ORPHAN_GRACE_MS + HOUR)
    await writeAged(join(blobsDir, fresh), 0)
    const live = await upload(server, { 'X-Max-Downloads': '5' })
    const liveAt = (Date.now() - ORPHAN_GRACE_MS - HOUR) / 1000
    await utimes(join(blobsDir, live.id), liveAt, liveAt)

    const first = await server.service.cleanup.runOnce()
    expect(first.orphansRemoved).toBe(0)
    expect(await committedBlobs(server)).toContain(orphan)

    const second = await server.service.cleanup.runOnce()
    expect(second.orphansRemoved).toBe(1)
    expect(await committedBlobs(server)).toEqual([fresh, live.id].sort())
    const res = await download(server, live)
    expect(Buffer.from(await res.arrayBuffer()).equals(live.body)).toBe(true)
  })

  it('sweeps stray partial files older than the session idle time and a margin', async () => {
    const partialDir = join(server.dataDir, 'blobs', '.partial')
    const stale = `${randomUUID()}.${randomUUID()}`
    const recent = `${randomUUID()}.${randomUUID()}`
    await writeAged(join(partialDir, stale), IDLE_SEC * 1000 + PARTIAL_MARGIN_MS + HOUR)
    await writeAged(join(partialDir, recent), IDLE_SEC * 1000)

    const report = await server.service.cleanup.runOnce()
    expect(report.partialsRemoved).toBe(1)
    expect(await partialFiles(server)).toEqual([recent])
  })

  it('sweeps stored chunks that no session in the database records, once older than the idle time', async () => {
    // A chunk stored by an instance that died before recording it has no session row.
    const chunkDir = join(server.dataDir, 'blobs', '.chunks')
    await mkdir(chunkDir, { recursive: true })
    const stale = `${randomUUID()}.0.${randomUUID()}`
    const recent = `${randomUUID()}.0.${randomUUID()}`
    await writeAged(join(chunkDir, stale), IDLE_SEC * 1000 + PARTIAL_MARGIN_MS + HOUR)
    await writeAged(join(chunkDir, recent), IDLE_SEC * 1000)

    const report = await server.service.cleanup.runOnce()
    expect(report.partialsRemoved).toBe(1)
    expect(await readdir(chunkDir)).toEqual([recent])
  })

  it('aborts a chunked session left idle longer than UPLOAD_SESSION_IDLE_SEC', async () => {
    const init = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/upload/init`, { method: 'POST', headers })
    const chunk = (id: string, index: number) =>
      fetch(`${server.url}/api/upload/${id}/chunk?index=${index}`, {
        method: 'POST',
        body: randomBytes(1024),
      })
    const abandonedHeaders = uploadHeaders(2048)
    const abandoned = ((await (await init(abandonedHeaders)).json()) as { id: string }).id
    expect((await chunk(abandoned, 0)).status).toBe(200)
    const abandonedFiles = await partialFiles(server)
    expect(abandonedFiles.length).toBeGreaterThan(0)
    expect(abandonedFiles.every((name) => name.startsWith(`${abandoned}.`))).toBe(true)

    clock.advance(IDLE_SEC * 1000 + 1)
    const activeHeaders = uploadHeaders(2048)
    const active = ((await (await init(activeHeaders)).json()) as { id: string }).id

    const report = await server.service.cleanup.runOnce()
    expect(report.sessionsExpired).toBe(1)
    // A session in the database has its session file from init, and no partial blob.
    expect(await partialFiles(server)).toEqual([expect.stringMatching(`^${active}\\.`)])
    expect((await chunk(abandoned, 1)).status).toBe(404)
    const finalize = await fetch(`${server.url}/api/upload/${abandoned}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': abandonedHeaders['X-Owner-Token']! },
    })
    expect(finalize.status).toBe(404)
    expect((await fetch(`${server.url}/api/info/${abandoned}`)).status).toBe(404)
    expect(await committedBlobs(server)).toEqual([])

    // The session that was active in the meantime still finishes.
    expect((await chunk(active, 0)).status).toBe(200)
    expect((await chunk(active, 1)).status).toBe(200)
    const done = await fetch(`${server.url}/api/upload/${active}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': activeHeaders['X-Owner-Token']! },
    })
    expect(done.status).toBe(200)
  })

  it('deletes API tokens once they have been expired for the grace, and keeps them listed until then', async () => {
    const { apiTokens } = server.service.services
    const token = (expiresInDays: number) => ({
      name: `${expiresInDays} days`,
      scopes: ['files'],
      expiresInDays,
    })
    const soon = await apiTokens.create('ada', token(1))
    const later = await apiTokens.create('ada', token(40))
    const others = await apiTokens.create('bob', token(1))
    const names = async (subject: string) =>
      (await apiTokens.list(subject)).map((t) => t.name).sort()

    // Expired: refused, but still listed, so its owner sees why a script stopped.
    clock.advance(DAY)
    await expect(apiTokens.authenticate(soon.token)).rejects.toMatchObject({ status: 401 })
    clock.advance(EXPIRED_TOKEN_GRACE_MS - 1)
    expect(await server.service.cleanup.runOnce()).toMatchObject({ apiTokensPurged: 0 })
    expect(await names('ada')).toEqual(['1 days', '40 days'])

    clock.advance(1)
    expect(await server.service.cleanup.runOnce()).toMatchObject({
      apiTokensPurged: 2,
      failedSteps: [],
    })
    expect(await names('ada')).toEqual(['40 days'])
    expect(await names('bob')).toEqual([])
    expect(await apiTokens.authenticate(later.token)).toMatchObject({ subject: 'ada' })
    await expect(apiTokens.authenticate(others.token)).rejects.toMatchObject({ status: 401 })
    expect(await server.service.cleanup.runOnce()).toMatchObject({ apiTokensPurged: 0 })
  })

  describe('runs', () => {
    function job(logger: Logger): CleanupJob {
      const { config, db, blobs, services, leader } = server.service
      return new CleanupJob({ config, db, blobs, services, logger, leader, now: clock.now })
    }

    it('logs a failed step at error level and still runs the others', async () => {
      const logger = recordingLogger()
      const file = await upload(server, { 'X-Expire-Sec': '300' })
      const note = await createNote(server, { expireSec: 300 })
      server.service.services.janitor.retry = () => Promise.reject(new Error('queue unreadable'))
      clock.advance(300_000)

      const report = await job(logger).runOnce()
      expect(report).toMatchObject({ failedSteps: ['retry'], uploadsRemoved: 1, notesRemoved: 1 })
      expect(await committedBlobs(server)).not.toContain(file.id)
      expect(await noteStored(server, note)).toBe(false)
      expect(logger.lines.filter((line) => line.level === 'error')).toEqual([
        { level: 'error', message: 'cleanup step retry failed' },
      ])
      const debug = logger.lines.filter((line) => line.level === 'debug')
      expect(debug).toHaveLength(1)
      expect(debug[0]!.message).toMatch(/1 uploads .*1 notes.*failed: retry/)
    })

    // Two instances on one PostgreSQL database: only one removes shared content at a time.
    it.runIf(TEST_DIALECT === 'postgres')(
      'runs the shared steps on one instance at a time and hands them over when it stops',
      async () => {
        const { config, db, blobs, services } = server.service
        const instance = () =>
          new CleanupJob({
            config,
            db,
            blobs,
            services,
            logger: recordingLogger(),
            leader: leaderLock(db, () => undefined),
            now: clock.now,
          })
        const [first, second] = [instance(), instance()]
        const file = await upload(server, { 'X-Expire-Sec': '300' })
        clock.advance(300_000)
        try {
          expect(await first.runOnce()).toMatchObject({ leading: true, uploadsRemoved: 1 })
          const other = await upload(server, { 'X-Expire-Sec': '300' })
          clock.advance(300_000)
          expect(await second.runOnce()).toMatchObject({ leading: false, uploadsRemoved: 0 })
          expect(await committedBlobs(server)).toContain(other.id)

          await first.stop()
          expect(await second.runOnce()).toMatchObject({ leading: true, uploadsRemoved: 1 })
          expect(await committedBlobs(server)).not.toContain(file.id)
          expect(await committedBlobs(server)).not.toContain(other.id)
        } finally {
          await first.stop()
          await second.stop()
        }
      },
    )

    it('never runs twice at once', async () => {
      const cleanup = job(recordingLogger())
      const first = cleanup.runOnce()
      expect(cleanup.runOnce()).toBe(first)
      await first
      expect(cleanup.runOnce()).not.toBe(first)
    })

    it('runs on its timer until stopped', async () => {
      const logger = recordingLogger()
      const cleanup = job(logger)
      const file = await upload(server, { 'X-Expire-Sec': '300' })
      clock.advance(300_000)
      cleanup.start(20)
      try {
        await expect.poll(() => committedBlobs(server), { timeout: 5000 }).toEqual([])
        expect(await uploadStatus(server, file)).toMatchObject({ info: 410 })
      } finally {
        await cleanup.stop()
      }
      const runs = logger.lines.length
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(logger.lines.length).toBe(runs)
    })

    // A timed run that fails outside its steps is logged; it must not end the process.
    it('logs a timed run that fails outside its steps, without an unhandled rejection', async () => {
      const unhandled: unknown[] = []
      const onUnhandled = (reason: unknown) => unhandled.push(reason)
      process.on('unhandledRejection', onUnhandled)
      const logger = recordingLogger()
      const { config, db, blobs, services } = server.service
      const leader = {
        acquire: () => Promise.reject(new Error('lock unreadable')),
        release: () => Promise.resolve(),
      }
      const cleanup = new CleanupJob({
        config,
        db,
        blobs,
        services,
        logger,
        leader,
        now: clock.now,
      })
      cleanup.start(20)
      try {
        await expect
          .poll(() => logger.lines.filter((line) => line.level === 'error'), { timeout: 5000 })
          .toContainEqual({ level: 'error', message: 'cleanup run failed' })
        expect(unhandled).toEqual([])
      } finally {
        await cleanup.stop()
        process.off('unhandledRejection', onUnhandled)
      }
    })
  })
})
