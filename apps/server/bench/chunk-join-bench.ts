/**
 * What the filesystem store spends on a 1 GiB chunked upload kept in the database: chunks of the
 * size clients are asked for (10 MB) stored in order into one session, then joined into its blob.
 * Prints the time of the chunks and of the join, and the bytes this process had written to disk
 * for each (/proc/self/io); the last line is one JSON object.
 * Run: `pnpm --filter @fileshare/server bench:join` (BENCH_JOIN_MIB sets the upload's size).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { UPLOAD_CHUNK_BYTES } from '@fileshare/protocol'

import type { StoredChunk } from '../src/storage/blob-store.js'
import { FilesystemBlobStore } from '../src/storage/filesystem.js'
import { MiB, round } from './lib.js'

const SIZE = Number(process.env.BENCH_JOIN_MIB ?? 1024) * MiB

/** Bytes this process has caused to be written to storage so far. */
async function writtenBytes(): Promise<number> {
  const io = await readFile('/proc/self/io', 'utf8')
  return Number(/^write_bytes: (\d+)$/m.exec(io)?.[1] ?? NaN)
}

/** Milliseconds and bytes written to disk by `step`. */
async function measured(step: () => Promise<void>): Promise<{ ms: number; diskMB: number }> {
  const bytesBefore = await writtenBytes()
  const before = performance.now()
  await step()
  const ms = performance.now() - before
  return { ms: round(ms), diskMB: round(((await writtenBytes()) - bytesBefore) / 1e6) }
}

const dir = await mkdtemp(join(tmpdir(), 'fileshare-join-bench-'))
try {
  const store = await FilesystemBlobStore.open(dir)
  const key = randomUUID()
  const payload = randomBytes(UPLOAD_CHUNK_BYTES)
  const upload = await store.startChunks(key, SIZE, UPLOAD_CHUNK_BYTES)
  const chunks: StoredChunk[] = []
  const put = await measured(async () => {
    for (let index = 0, at = 0; at < SIZE; index++, at += UPLOAD_CHUNK_BYTES) {
      const body = payload.subarray(0, Math.min(UPLOAD_CHUNK_BYTES, SIZE - at))
      chunks.push(await store.putChunk(key, index, [body], body.length, upload))
    }
  })
  const joined = await measured(() => store.joinChunks(key, chunks, upload))
  await store.deleteChunks(chunks)
  const result = {
    sizeMiB: SIZE / MiB,
    chunks: chunks.length,
    putMs: put.ms,
    putDiskMB: put.diskMB,
    joinMs: joined.ms,
    joinDiskMB: joined.diskMB,
    totalMBps: round(SIZE / 1e6 / ((put.ms + joined.ms) / 1000)),
  }
  console.log('1 GiB in 10 MB chunks, stored in order then joined', result)
  console.log(JSON.stringify(result))
} finally {
  await rm(dir, { recursive: true, force: true })
}
