/**
 * The BlobStore contract on the filesystem backend, in a temporary DATA_DIR, and the way this
 * backend sends a download: a blob opened and written to a Node writable.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { FilesystemBlobStore } from '../src/storage/filesystem.js'
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
  // Partial files are named `<key>.<random>`.
  unfinished: async () =>
    (await readdir(join(dataDir, 'blobs', '.partial'))).map((name) => name.split('.')[0] ?? ''),
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
})
