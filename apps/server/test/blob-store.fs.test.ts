/**
 * The BlobStore contract on the filesystem backend, in a temporary DATA_DIR, and the way this
 * backend sends a download: a blob opened and written to a Node writable.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, open, readdir, readFile, readlink, rm, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import type { BlobWriter } from '../src/storage/blob-store.js'

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
