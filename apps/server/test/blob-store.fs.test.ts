/**
 * The BlobStore contract on the filesystem backend, in a temporary DATA_DIR, and the way this
 * backend sends a download: a blob opened and written to a Node writable.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import {
  mkdtemp,
  open,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  type FileHandle,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import type { BlobWriter, ChunkBody, StoredChunk } from '../src/storage/blob-store.js'

import { FilesystemBlobStore } from '../src/storage/filesystem.js'
import { READ_BLOCK, SEND_WINDOW } from '../src/storage/filesystem-reader.js'
import { SYNC_EVERY, WRITES_IN_FLIGHT } from '../src/storage/filesystem-writer.js'
import { blobStoreContract } from './blob-store.contract.js'

let dataDir: string
let store: FilesystemBlobStore

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fileshare-blobs-'))
  store = await FilesystemBlobStore.open(dataDir)
})
afterAll(() => rm(dataDir, { recursive: true, force: true }))

blobStoreContract('filesystem', {
  store: () => store,
  largeSize: 3 * 1024 ** 2 + 123,
  // Partial files are named `<key>.<random>`, chunk files `<key>.<index>.<random>`.
  unfinished: async () =>
    [
      ...(await readdir(join(dataDir, 'blobs', '.partial'))),
      ...(await readdir(join(dataDir, 'blobs', '.chunks')).catch(() => [])),
    ].map((name) => name.split('.')[0] ?? ''),
})

/** A receiver that takes `pieceDelayMs` per piece, so the sender meets its backpressure. */
function slowReceiver(pieceDelayMs: number): { out: Writable; received: () => Buffer } {
  const pieces: Buffer[] = []
  const out = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _encoding, done) {
      // Copied: a sender may reuse its buffer once the write is done.
      pieces.push(Buffer.from(chunk))
      setTimeout(done, pieceDelayMs)
    },
  })
  return { out, received: () => Buffer.concat(pieces) }
}

/** Descriptors of this process open on `path`. */
async function openDescriptors(path: string): Promise<number> {
  let count = 0
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '')
    if (target === path) count++
  }
  return count
}

describe('filesystem downloads (open and pipeTo)', () => {
  async function stored(size: number): Promise<{ key: string; bytes: Buffer }> {
    const key = randomUUID()
    const bytes = randomBytes(size)
    const writer = await store.create(key)
    await writer.write(bytes)
    await writer.commit()
    return { key, bytes }
  }

  it('writes blobs to slow receivers byte for byte, several at once, then ends them', async () => {
    const blobs = await Promise.all([stored(5 * 1024 ** 2 + 7), stored(3 * 1024 ** 2), stored(10)])
    await Promise.all(
      blobs.map(async ({ key, bytes }) => {
        const { out, received } = slowReceiver(1)
        const finished = once(out, 'finish')
        await (await store.open(key)).pipeTo(out, bytes.length)
        await finished
        expect(received().equals(bytes)).toBe(true)
      }),
    )
  })

  it('stops reading and closes the file when the receiver goes away mid-blob', async () => {
    const { key } = await stored(8 * 1024 ** 2)
    const path = join(dataDir, 'blobs', key)
    const out = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        // The client disconnects after the first block.
        out.destroy()
        done()
      },
    })
    const blob = await store.open(key)
    expect(await openDescriptors(path)).toBe(1)
    await blob.pipeTo(out, 8 * 1024 ** 2)
    expect(out.writableFinished).toBe(false)
    expect(await openDescriptors(path)).toBe(0)
  })

  // Property: a damaged blob never passes for a whole one; its receiver is cut off, not ended.
  it.each([
    ['shorter', 1],
    ['longer', -1],
  ])('destroys the receiver when the blob is %s than its recorded length', async (_, delta) => {
    const { key, bytes } = await stored(3 * 1024 ** 2 + 5)
    const { out } = slowReceiver(0)
    const failed = once(out, 'error')
    const blob = await store.open(key)
    await expect(blob.pipeTo(out, bytes.length + delta)).rejects.toThrow(
      `does not have its recorded length of ${bytes.length + delta} bytes`,
    )
    expect(out.destroyed).toBe(true)
    expect(out.writableFinished).toBe(false)
    await failed
    expect(await openDescriptors(join(dataDir, 'blobs', key))).toBe(0)
  })

  it('fails to open a blob that does not exist, before anything is sent', async () => {
    await expect(store.open(randomUUID())).rejects.toThrow()
  })

  it('keeps SEND_WINDOW queued on a receiver that takes nothing, and not much more', async () => {
    const { key, bytes } = await stored(5 * READ_BLOCK + 3)
    const pieces: Buffer[] = []
    const held: (() => void)[] = []
    let holding = true
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        pieces.push(Buffer.from(chunk))
        if (holding) held.push(done)
        else done()
      },
    })
    const finished = once(out, 'finish')
    const sent = (await store.open(key)).pipeTo(out, bytes.length)
    await vi.waitFor(() => expect(out.writableLength).toBeGreaterThanOrEqual(SEND_WINDOW))
    // Nothing is taken: the download waits for the socket and stops reading.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(out.writableLength).toBeLessThanOrEqual(SEND_WINDOW + READ_BLOCK)
    holding = false
    for (const done of held.splice(0)) done()
    await sent
    await finished
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true)
  })
})

describe('filesystem uploads (the writer)', () => {
  /** The prototype of node:fs/promises' FileHandle, whose methods the writer calls. */
  let proto: FileHandle
  beforeAll(async () => {
    const path = join(dataDir, `probe-${randomUUID()}`)
    const probe = await open(path, 'w')
    await probe.close()
    await rm(path)
    proto = Object.getPrototypeOf(probe) as FileHandle
  })

  type Writev = ReturnType<FileHandle['writev']>

  /** Runs every batch write of the writer through `around`, which calls `write` to do it. */
  function aroundWritev(around: (write: () => Writev, call: number) => Writev): void {
    const writev = proto.writev
    let calls = 0
    vi.spyOn(proto, 'writev').mockImplementation(function (
      this: FileHandle,
      ...args: Parameters<FileHandle['writev']>
    ) {
      return around(() => writev.apply(this, args), ++calls)
    })
  }

  /** Writes `data` piece by piece; the promise fails with the first failed write. */
  async function writeAll(writer: BlobWriter, data: Buffer[]): Promise<void> {
    for (const piece of data) await writer.write(piece)
  }

  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

  async function leftovers(key: string): Promise<string[]> {
    const partial = await readdir(join(dataDir, 'blobs', '.partial'))
    const stored = await readdir(join(dataDir, 'blobs'))
    return [...partial, ...stored].filter((name) => name.startsWith(key))
  }

  /** Pieces of uneven sizes, so that batches differ in length and offset. */
  function pieces(count: number): Buffer[] {
    return Array.from({ length: count }, (_, i) =>
      randomBytes(600 * 1024 + ((i * 337_219) % 900_000)),
    )
  }

  /** `count` pieces of 1 MiB each, one batch each. */
  const mebibytes = (count: number): Buffer[] => Array(count).fill(randomBytes(1024 * 1024))

  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('writes WRITES_IN_FLIGHT batches at once, each at its place whatever order they finish in', async () => {
    let active = 0
    let peak = 0
    aroundWritev(async (write, call) => {
      active++
      peak = Math.max(peak, active)
      // Later batches finish first now and then.
      await delay(20 - 6 * (call % 4))
      try {
        return await write()
      } finally {
        active--
      }
    })
    const key = randomUUID()
    const data = pieces(14)
    const writer = await store.create(key)
    await writeAll(writer, data)
    await writer.commit()
    expect(peak).toBe(WRITES_IN_FLIGHT)
    expect((await readFile(join(dataDir, 'blobs', key))).equals(Buffer.concat(data))).toBe(true)
  })

  it('fails on a batch that could not be written, and leaves neither blob nor partial file', async () => {
    aroundWritev(async (write, call) => {
      if (call === 2) throw new Error('No space left on device')
      return write()
    })
    const key = randomUUID()
    const writer = await store.create(key)
    await expect(writeAll(writer, pieces(12))).rejects.toThrow('No space left on device')
    await expect(writer.commit()).rejects.toThrow('No space left on device')
    expect(await leftovers(key)).toEqual([])
  })

  it('takes a short write for a failure, not a hole in the blob', async () => {
    aroundWritev(async (write) => {
      const result = await write()
      return { ...result, bytesWritten: result.bytesWritten - 1 }
    })
    const key = randomUUID()
    const writer = await store.create(key)
    await writeAll(writer, pieces(6)).catch(() => undefined)
    await expect(writer.commit()).rejects.toThrow(/^Wrote \d+ of \d+ bytes$/)
    expect(await leftovers(key)).toEqual([])
  })

  it('flushes to disk in the background every SYNC_EVERY bytes, before the commit', async () => {
    const datasync = proto.datasync
    let finished = 0
    const calls = vi.spyOn(proto, 'datasync').mockImplementation(async function (this: FileHandle) {
      await datasync.call(this)
      finished++
    })
    const key = randomUUID()
    const writer = await store.create(key)
    const stretch = mebibytes(SYNC_EVERY / (1024 * 1024) + 1)
    // One stretch: one flush, started by the write that completes it.
    await writeAll(writer, stretch)
    await vi.waitFor(() => expect(finished).toBe(1), { timeout: 10_000 })
    expect(calls).toHaveBeenCalledTimes(1)
    // Another stretch once that flush is done: another flush.
    await writeAll(writer, stretch)
    await vi.waitFor(() => expect(calls).toHaveBeenCalledTimes(2), { timeout: 10_000 })
    await writer.commit()
    const stored = await readFile(join(dataDir, 'blobs', key))
    expect(stored.length).toBe(2 * stretch.length * 1024 * 1024)
  })

  it('fails the commit when a background flush failed, leaving nothing', async () => {
    vi.spyOn(proto, 'datasync').mockRejectedValue(new Error('Input/output error'))
    const key = randomUUID()
    const writer = await store.create(key)
    await writeAll(writer, mebibytes((2 * SYNC_EVERY) / (1024 * 1024) + 1)).catch(() => undefined)
    await expect(writer.commit()).rejects.toThrow('Input/output error')
    expect(await leftovers(key)).toEqual([])
  })

  it('aborts while batches are being written: waits for them, then removes the partial file', async () => {
    const gate: (() => void)[] = []
    let started = 0
    aroundWritev(async (write) => {
      started++
      await new Promise<void>((resolve) => gate.push(resolve))
      return write()
    })
    const key = randomUUID()
    const writer = await store.create(key)
    await writeAll(writer, pieces(2))
    await vi.waitFor(() => expect(started).toBeGreaterThan(0))
    const aborted = writer.abort()
    let done = false
    void aborted.then(() => (done = true))
    await delay(50)
    expect(done).toBe(false)
    for (const open of gate.splice(0)) open()
    await aborted
    expect(await leftovers(key)).toEqual([])
  })
})

describe('filesystem chunks in place', () => {
  const MiB = 1024 ** 2
  const chunksDir = () => join(dataDir, 'blobs', '.chunks')
  const sessionFile = (key: string) => join(chunksDir(), `${key}.inplace`)
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    )

  async function readBlob(key: string): Promise<Buffer> {
    const pieces: Uint8Array[] = []
    for await (const piece of await store.read(key)) pieces.push(piece)
    return Buffer.concat(pieces)
  }

  /** Chunks of `sizes` for a session started for chunks of `chunkSize` bytes, stored in order. */
  async function session(sizes: readonly number[], chunkSize: number) {
    const key = randomUUID()
    const bytes = sizes.map((size) => randomBytes(size))
    const upload = await store.startChunks(
      key,
      sizes.reduce((a, b) => a + b, 0),
      chunkSize,
    )
    const chunks: StoredChunk[] = []
    for (const [index, body] of bytes.entries()) {
      chunks.push(await store.putChunk(key, index, [body], body.length, upload))
    }
    return { key, upload: upload!, bytes, chunks }
  }

  it('writes chunks of the stride into the session file and joins them by renaming it', async () => {
    const { key, upload, bytes, chunks } = await session([2 * MiB, 2 * MiB, 1 * MiB + 3], 2 * MiB)
    expect(upload).toBe(`inplace:${5 * MiB + 3}:${2 * MiB}`)
    // No chunk has a file of its own: the session file holds them all.
    expect((await readdir(chunksDir())).filter((name) => name.startsWith(key))).toEqual([
      `${key}.inplace`,
    ])
    const { ino, size } = await stat(sessionFile(key))
    expect(size).toBe(5 * MiB + 3)
    await store.joinChunks(key, chunks, upload)
    // The same file, renamed: not a byte was copied.
    expect((await stat(join(dataDir, 'blobs', key))).ino).toBe(ino)
    expect(await exists(sessionFile(key))).toBe(false)
    expect((await readBlob(key)).equals(Buffer.concat(bytes))).toBe(true)
    await store.deleteChunks(chunks)
    expect((await readBlob(key)).equals(Buffer.concat(bytes))).toBe(true)
  })

  describe('chunks that need not be durable alone', () => {
    /** Holds every `datasync` of a file until released; counts the calls. */
    async function holdFlushes() {
      const probe = await open(join(dataDir, `probe-${randomUUID()}`), 'w')
      const proto = Object.getPrototypeOf(probe) as FileHandle
      await probe.close()
      const datasync = proto.datasync
      const waiting: (() => void)[] = []
      const calls = vi.spyOn(proto, 'datasync').mockImplementation(function (this: FileHandle) {
        return new Promise<void>((resolve) => waiting.push(resolve)).then(() => datasync.call(this))
      })
      const release = () => {
        for (const go of waiting.splice(0)) go()
      }
      return { calls, release }
    }

    afterEach(() => {
      vi.restoreAllMocks()
    })

    it('are stored without waiting for the disk, which a flush in the background reaches, one at a time', async () => {
      const flushes = await holdFlushes()
      const key = randomUUID()
      const bytes = [randomBytes(MiB), randomBytes(MiB), randomBytes(3)]
      const upload = await store.startChunks(key, 2 * MiB + 3, MiB)
      const chunks: StoredChunk[] = []
      try {
        // Every flush waits, yet each chunk is stored: the first started a flush of the session's
        // file, and the others found it under way.
        for (const [index, body] of bytes.entries()) {
          chunks.push(await store.putChunk(key, index, [body], body.length, upload, false))
        }
        expect(flushes.calls).toHaveBeenCalledTimes(1)
        flushes.release()
        await store.joinChunks(key, chunks, upload)
      } finally {
        flushes.release()
      }
      expect((await readBlob(key)).equals(Buffer.concat(bytes))).toBe(true)
    })

    it('are told apart from a chunk that must be durable alone, which waits for its flush', async () => {
      const flushes = await holdFlushes()
      const key = randomUUID()
      const body = randomBytes(MiB)
      const upload = await store.startChunks(key, MiB, MiB)
      let stored = false
      const put = store.putChunk(key, 0, [body], MiB, upload).then((chunk) => {
        stored = true
        return chunk
      })
      try {
        await vi.waitFor(() => expect(flushes.calls).toHaveBeenCalledTimes(1))
        await new Promise((resolve) => setTimeout(resolve, 50))
        expect(stored).toBe(false)
      } finally {
        flushes.release()
      }
      await store.joinChunks(key, [await put], upload)
      expect((await readBlob(key)).equals(body)).toBe(true)
    })
  })

  it('copies a join whose chunks leave the stride, and removes the session file after it', async () => {
    const { key, upload, bytes, chunks } = await session([2 * MiB, 1 * MiB, 2 * MiB], 2 * MiB)
    const own = chunks.filter((chunk) => !chunk.ref.endsWith('.inplace'))
    expect(own.map((chunk) => chunk.size)).toEqual([1 * MiB, 2 * MiB])
    const { ino } = await stat(sessionFile(key))
    await store.joinChunks(key, chunks, upload)
    expect((await stat(join(dataDir, 'blobs', key))).ino).not.toBe(ino)
    expect(await exists(sessionFile(key))).toBe(false)
    expect((await readBlob(key)).equals(Buffer.concat(bytes))).toBe(true)
    await store.deleteChunks(chunks)
    expect((await readdir(chunksDir())).filter((name) => name.startsWith(key))).toEqual([])
  })

  /** A body that brings `bytes`, then fails. */
  async function* failingAfter(bytes: Buffer) {
    yield bytes
    throw new Error('The connection was reset')
  }

  it.each([
    ['fails', (bytes: Buffer): ChunkBody => failingAfter(bytes.subarray(0, MiB))],
    ['is cut off', (bytes: Buffer): ChunkBody => [bytes.subarray(0, MiB + 5)]],
    ['runs over', (bytes: Buffer): ChunkBody => [bytes, Buffer.alloc(1)]],
  ])('keeps the other chunks whole when a body %s, and joins its retry', async (_, attempt) => {
    const key = randomUUID()
    const [zero, first, second] = [randomBytes(2 * MiB), randomBytes(2 * MiB), randomBytes(2 * MiB)]
    const last = randomBytes(MiB + 9)
    const upload = await store.startChunks(key, 5 * MiB + 9, 2 * MiB)
    const put = (index: number, body: Buffer) =>
      store.putChunk(key, index, [body], body.length, upload)
    const around = [await put(0, zero), await put(2, last)]
    await expect(store.putChunk(key, 1, attempt(first), 2 * MiB, upload)).rejects.toThrow()
    // Nothing of the attempt was kept apart from the session file.
    expect((await readdir(chunksDir())).filter((name) => name.startsWith(key))).toEqual([
      `${key}.inplace`,
    ])
    const chunks = [around[0]!, await put(1, second), around[1]!]
    await store.joinChunks(key, chunks, upload)
    expect((await readBlob(key)).equals(Buffer.concat([zero, second, last]))).toBe(true)
  })

  it('writes the chunks of a session that arrive at once through one open file, closed after the last', async () => {
    const key = randomUUID()
    const bytes = [randomBytes(MiB), randomBytes(MiB), randomBytes(MiB)]
    const upload = await store.startChunks(key, 3 * MiB, MiB)
    // Each body sends its first half, then waits until every chunk has begun.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let begun = 0
    let allBegun!: () => void
    const everyOneBegun = new Promise<void>((resolve) => (allBegun = resolve))
    async function* body(whole: Buffer) {
      yield whole.subarray(0, MiB / 2)
      if (++begun === bytes.length) allBegun()
      await released
      yield whole.subarray(MiB / 2)
    }
    const puts = bytes.map((whole, index) =>
      store.putChunk(key, index, body(whole), MiB, upload, false),
    )
    await everyOneBegun
    expect(await openDescriptors(sessionFile(key))).toBe(1)
    release()
    const chunks = await Promise.all(puts)
    await vi.waitFor(async () => expect(await openDescriptors(sessionFile(key))).toBe(0))
    await store.joinChunks(key, chunks, upload)
    expect((await readBlob(key)).equals(Buffer.concat(bytes))).toBe(true)
  })

  it('keeps an attempt that lost its index from writing into the joined blob', async () => {
    const { key, upload, bytes, chunks } = await session([2 * MiB, 2 * MiB], 2 * MiB)
    // A second attempt at index 1 (another request of the client) still reading its body when
    // the first one is recorded and the session finalized.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let firstWritten!: () => void
    const wroteFirst = new Promise<void>((resolve) => (firstWritten = resolve))
    async function* loser() {
      yield bytes[1]!.subarray(0, MiB)
      firstWritten()
      await released
      yield Buffer.alloc(MiB, 0xee)
    }
    const losing = store.putChunk(key, 1, loser(), 2 * MiB, upload)
    losing.catch(() => undefined)
    await wroteFirst
    await store.joinChunks(key, chunks, upload)
    release()
    await expect(losing).rejects.toThrow('are joined or discarded')
    expect((await readBlob(key)).equals(Buffer.concat(bytes))).toBe(true)
  })

  it('refuses states, refs and chunk sizes it did not make, and a join leaves no blob then', async () => {
    const { key, upload, chunks } = await session([2 * MiB, 100], 2 * MiB)
    for (const state of ['inplace:10:0', 'inplace:010:5', 'inplace:10:5 ', 'x', '']) {
      await expect(store.putChunk(key, 0, [Buffer.alloc(5)], 5, state)).rejects.toThrow(
        'Refusing chunk upload state',
      )
    }
    await expect(store.startChunks(randomUUID(), 10, 0)).rejects.toThrow('Refusing chunk size')
    await expect(store.startChunks('../x', 10, 5)).rejects.toThrow('Refusing blob key')
    const other = { ...chunks[0]!, ref: `${randomUUID()}.0.inplace` }
    await expect(store.deleteChunks([{ ...other, ref: '../x.0.inplace' }])).rejects.toThrow(
      'Refusing chunk name',
    )
    await expect(store.joinChunks(key, [other, chunks[1]!], upload)).rejects.toThrow('Refusing')
    expect(await exists(join(dataDir, 'blobs', key))).toBe(false)
  })

  it('leaves no blob when the session file is gone before the join', async () => {
    const { key, upload, chunks } = await session([2 * MiB, 100], 2 * MiB)
    await store.abortChunks(key, upload)
    expect(await exists(sessionFile(key))).toBe(false)
    // A chunk after the abort finds no session file to write into.
    await expect(store.putChunk(key, 1, [Buffer.alloc(100)], 100, upload)).rejects.toThrow('ENOENT')
    await expect(store.joinChunks(key, chunks, upload)).rejects.toThrow('ENOENT')
    expect(await exists(join(dataDir, 'blobs', key))).toBe(false)
  })

  it('sweeps stale session files by age unless kept, and the partial sweep leaves them', async () => {
    const [kept, stale] = [await session([100], 100), await session([100], 100)]
    expect(await store.sweepUnfinished(0, new Set())).toBeGreaterThanOrEqual(0)
    expect(await exists(sessionFile(kept.key))).toBe(true)
    expect(await exists(sessionFile(stale.key))).toBe(true)
    // Young files survive a sweep with a threshold in the future of their last write.
    await store.sweepChunks(60 * 60_000, new Set())
    expect(await exists(sessionFile(stale.key))).toBe(true)
    const keep = new Set([kept.key])
    expect(await store.sweepChunks(0, keep)).toBeGreaterThanOrEqual(1)
    expect(await exists(sessionFile(kept.key))).toBe(true)
    expect(await exists(sessionFile(stale.key))).toBe(false)
    await store.abortChunks(kept.key, kept.upload)
    expect(await exists(sessionFile(kept.key))).toBe(false)
  })
})
