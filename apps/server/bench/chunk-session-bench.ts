/**
 * What a chunk costs when chunked sessions live in the database: chunked uploads of small chunks
 * against one in-process server on SQLite and one on PostgreSQL (sessions in upload_sessions and
 * chunk_parts on both), both on the filesystem backend. Prints chunk requests per
 * second and the p50 and p99 of one chunk request; the last line is one JSON object.
 * Run: `pnpm --filter @fileshare/server bench:chunks` (PostgreSQL 15 from Debian's packages).
 */
import { randomBytes } from 'node:crypto'

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startPostgres } from '@fileshare/testing/postgres'

import { openDatabase } from '../src/db/open-database.js'
import { SessionHoldEnds } from '../src/sessions/session-holds.js'
import { ChunkSessions } from '../src/sessions/chunk-sessions.js'
import { FilesystemBlobStore } from '../src/storage/filesystem.js'
import type { BlobStore, ChunkBody } from '../src/storage/blob-store.js'

import { startTestServer, uploadHeaders, type TestServer } from '../test/harness.js'
import { round } from './lib.js'

const UPLOADS = 60
const CHUNKS_PER_UPLOAD = 8
const CHUNK = 64 * 1024

async function measure(server: TestServer) {
  const latencies: number[] = []
  const started = performance.now()
  for (let u = 0; u < UPLOADS; u++) {
    const headers = uploadHeaders(CHUNK * CHUNKS_PER_UPLOAD)
    const init = await fetch(`${server.url}/api/upload/init`, { method: 'POST', headers })
    const { id } = (await init.json()) as { id: string }
    for (let i = 0; i < CHUNKS_PER_UPLOAD; i++) {
      const before = performance.now()
      const res = await fetch(`${server.url}/api/upload/${id}/chunk?index=${i}`, {
        method: 'POST',
        body: randomBytes(CHUNK),
      })
      if (res.status !== 200) throw new Error(`chunk answered ${res.status}`)
      await res.arrayBuffer()
      latencies.push(performance.now() - before)
    }
    const done = await fetch(`${server.url}/api/upload/${id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': headers['X-Owner-Token']! },
    })
    if (done.status !== 200) throw new Error(`finalize answered ${done.status}`)
  }
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => round(latencies[Math.floor(q * (latencies.length - 1))]!, 2)
  return { chunksPerSec: round(latencies.length / seconds), p50Ms: at(0.5), p99Ms: at(0.99) }
}

/** Milliseconds per call of `step`, p50 and p99, over `runs` calls. */
async function timeEach(runs: number, step: (i: number) => Promise<unknown>) {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const before = performance.now()
    await step(i)
    times.push(performance.now() - before)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => round(times[Math.floor(q * (times.length - 1))]!, 2)
  return { p50Ms: at(0.5), p99Ms: at(0.99) }
}

/**
 * The database's share of a chunk: admission and record statements alone, with a store that
 * keeps nothing, against storing the chunk alone (write and fdatasync), in a file of its own and
 * in place in its session's file.
 */
async function databaseShare(url: string) {
  const dir = await mkdtemp(join(tmpdir(), 'fileshare-bench-'))
  const files = await FilesystemBlobStore.open(dir)
  const keepsNothing = {
    startChunks: async () => null,
    putChunk: async (key: string, index: number, body: ChunkBody) => {
      for await (const piece of body) void piece
      return { ref: `${key}.${index}`, size: CHUNK, etag: null }
    },
  } as unknown as BlobStore
  const db = await openDatabase({ dataDir: dir, databaseUrl: url, databasePoolSize: 4 })
  const limits = { window: 3, maxChunksInFlight: 4, speedLimit: 0, bufferBytes: Infinity }
  const scope = { requestId: null, maxChunkSize: CHUNK }
  const holdEnds = new SessionHoldEnds(db, keepsNothing, { endHold: async () => undefined })
  const sessions = new ChunkSessions(
    db,
    keepsNothing,
    limits,
    holdEnds,
    Date.now,
    crypto.randomUUID(),
    CHUNK,
  )
  const runs = UPLOADS * CHUNKS_PER_UPLOAD
  // Sessions of a 1 GiB upload in 10 MB chunks: about a hundred chunks each.
  const perSession = 100
  const ids: string[] = []
  for (let i = 0; i < runs / perSession + 1; i++) {
    ids.push(crypto.randomUUID())
    const opening = {
      declaredSize: CHUNK * perSession,
      context: '{}',
      requestId: null,
      resumable: true,
    }
    await sessions.open(ids[i]!, opening, () => Promise.resolve({ quota: null, slot: null }))
  }
  const bytes = randomBytes(CHUNK)
  const statements = await timeEach(runs, async (i) => {
    const id = ids[Math.floor(i / perSession)]!
    const chunk = await sessions.admit(id, i % perSession, CHUNK, scope)
    chunk.take(bytes)
    await chunk.finish()
    chunk.release()
  })
  const key = crypto.randomUUID()
  const chunkFile = await timeEach(runs, (i) => files.putChunk(key, i, [bytes], CHUNK, null))
  // The same chunks in the stride of a session laid out for them: in place in its one file.
  const laidOut = crypto.randomUUID()
  const layout = await files.startChunks(laidOut, CHUNK * runs, CHUNK)
  const chunkInPlace = await timeEach(runs, (i) =>
    files.putChunk(laidOut, i, [bytes], CHUNK, layout),
  )
  await db.close()
  await rm(dir, { recursive: true, force: true })
  return { statements, chunkFile, chunkInPlace }
}

const env = { RATE_LIMIT_MAX: '0', CLEANUP_INTERVAL: '86400' }
const sqlite = await startTestServer({ env })
const sqliteResult = await measure(sqlite)
await sqlite.close()
console.log('sqlite', sqliteResult)

const postgres = await startPostgres()
const pgServer = await startTestServer({
  env: { ...env, DATABASE_URL: await postgres.createDatabase() },
})
const pgResult = await measure(pgServer)
await pgServer.close()
console.log('postgres (sessions in the database)', pgResult)
const share = await databaseShare(await postgres.createDatabase())
await postgres.stop()
console.log('per chunk: PostgreSQL statements alone, chunk file alone, chunk in place', share)

console.log(
  JSON.stringify({ chunkBytes: CHUNK, sqlite: sqliteResult, postgres: pgResult, ...share }),
)
