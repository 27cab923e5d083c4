/**
 * The BlobStore contract on the S3 backend against a real radosgw, how its writer treats a
 * part upload that fails, and how chunks of sessions kept in the database become parts.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'

import type { BlobWriter, StoredChunk } from '../src/storage/blob-store.js'
import type { S3BlobStore } from '../src/storage/s3.js'
import { blobStoreContract } from './blob-store.contract.js'
import {
  countCommands,
  openMultipartKeys,
  openTestStore,
  TEST_PART_SIZE,
  testRadosgw,
} from './s3-backend.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('S3 blob store', { timeout: 30_000 }, () => {
  let gateway: Radosgw | undefined
  let store: S3BlobStore

  beforeAll(async () => {
    gateway = testRadosgw()
    store = await openTestStore(gateway)
  }, 90_000)
  afterAll(() => gateway?.stop())

  blobStoreContract('s3', {
    store: () => store,
    largeSize: 2 * TEST_PART_SIZE + 123,
    unfinished: () => openMultipartKeys(store),
  })

  /**
   * Lets every UploadPart of `store` reach radosgw, then makes attempts for which `fail` says so
   * fail as if with HTTP `status`. Returns the attempts seen, by part number, and the undo.
   */
  function failParts(status: number, fail: (partNumber: number, attempt: number) => boolean) {
    const attempts = new Map<number, number>()
    const name = `fail-parts-${randomUUID()}`
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'UploadPartCommand') return next(args)
        const partNumber = (args.input as { PartNumber: number }).PartNumber
        const attempt = (attempts.get(partNumber) ?? 0) + 1
        attempts.set(partNumber, attempt)
        // The part's body has been sent and stored when the failure comes: a retry must send it
        // again from its first byte.
        const result = await next(args)
        if (!fail(partNumber, attempt)) return result
        throw Object.assign(new Error(`injected ${status}`), {
          $metadata: { httpStatusCode: status },
        })
      },
      { step: 'initialize', name },
    )
    return { attempts, undo: () => store.client.middlewareStack.remove(name) }
  }

  /** Writes `bytes` in pieces of an odd size, so that pieces straddle part boundaries; commits. */
  async function storeOddPieces(writer: BlobWriter, bytes: Buffer) {
    for (let at = 0; at < bytes.length; at += 3 * 1024 ** 2 + 7) {
      await writer.write(bytes.subarray(at, at + 3 * 1024 ** 2 + 7))
    }
    await writer.commit()
  }

  async function readAll(key: string): Promise<Buffer> {
    const parts: Uint8Array[] = []
    for await (const part of await store.read(key)) parts.push(part)
    return Buffer.concat(parts)
  }

  /** Chunks of `sizes` for a new session, sent in order; the session's key, upload and bytes. */
  async function putChunks(sizes: readonly number[], indexes = sizes.map((_, i) => i)) {
    const key = randomUUID()
    const bytes = sizes.map((size) => randomBytes(size))
    const total = sizes.reduce((sum, size) => sum + size, 0)
    const upload = await store.startChunks(key, total, sizes[0]!)
    const chunks: StoredChunk[] = []
    for (const [i, body] of bytes.entries()) {
      chunks.push(await store.putChunk(key, indexes[i]!, [body], body.length, upload))
    }
    return { key, upload, chunks, bytes: Buffer.concat(bytes) }
  }

  describe('chunks of sessions kept in the database', () => {
    const MiB = 1024 ** 2

    it('sends chunks of a part or more into the upload and completes it, copying nothing', async () => {
      const { counts, undo } = countCommands(store)
      try {
        const { key, upload, chunks, bytes } = await putChunks([6 * MiB, 5 * MiB, 5 * MiB + 9])
        expect(upload).not.toBeNull()
        // No chunk is an object of its own: every one is a part of the blob's upload.
        expect(await openMultipartKeys(store)).toEqual([key])
        await store.joinChunks(key, chunks, upload)
        expect(Object.fromEntries(counts)).toEqual({
          CreateMultipartUploadCommand: 1,
          UploadPartCommand: 3,
          CompleteMultipartUploadCommand: 1,
        })
        undo()
        expect((await readAll(key)).equals(bytes)).toBe(true)
        expect(await openMultipartKeys(store)).not.toContain(key)
      } finally {
        undo()
      }
    })

    it('copies a small last chunk in as the final part, and nothing else', async () => {
      const { counts, undo } = countCommands(store)
      try {
        const { key, upload, chunks, bytes } = await putChunks([6 * MiB, 6 * MiB, 1 * MiB + 1])
        await store.joinChunks(key, chunks, upload)
        expect(counts.get('UploadPartCopyCommand')).toBe(1)
        expect(counts.get('UploadPartCommand')).toBe(2)
        expect(counts.get('GetObjectCommand')).toBeUndefined()
        undo()
        expect((await readAll(key)).equals(bytes)).toBe(true)
        await store.deleteChunks(chunks)
        expect((await openMultipartKeys(store)).filter((name) => name.includes(key))).toEqual([])
      } finally {
        undo()
      }
    })

    it('opens no upload for a blob smaller than a part', async () => {
      expect(await store.startChunks(randomUUID(), 5 * MiB - 1, 5 * MiB - 1)).toBeNull()
    })

    it('stores a chunk past the 10,000th part apart and still joins byte for byte', async () => {
      // Chunks 9,999 and 10,000 of a session: the first is part 10,000, the second cannot be one.
      const { key, upload, chunks, bytes } = await putChunks([5 * MiB, 5 * MiB], [9_999, 10_000])
      expect(chunks.map((chunk) => chunk.ref.startsWith('chunks/'))).toEqual([false, true])
      await store.joinChunks(key, chunks, upload)
      expect((await readAll(key)).equals(bytes)).toBe(true)
      await store.deleteChunks(chunks)
      expect((await openMultipartKeys(store)).filter((name) => name.includes(key))).toEqual([])
    })

    it('leaves no blob when a join with small chunks in the middle fails', async () => {
      const { key, upload, chunks } = await putChunks([6 * MiB, 1 * MiB, 6 * MiB])
      // The small chunk is gone when the join needs it.
      await store.deleteChunks(chunks)
      await expect(store.joinChunks(key, chunks, upload)).rejects.toThrow()
      await expect(store.read(key)).rejects.toThrow()
      expect((await openMultipartKeys(store)).filter((name) => name.includes(key))).toEqual([])
    })

    // Security: a client that drops a chunk request while it streams into S3 must cost that
    // chunk alone; an 'error' nobody hears on the body the SDK reads would end the process.
    it.each([
      { name: 'an object of its own', size: 1000, parts: false },
      { name: 'a part of the upload', size: 6 * MiB, parts: true },
    ])('fails a chunk sent as $name whose body breaks off, and nothing else', async (c) => {
      const key = randomUUID()
      const upload = c.parts ? await store.startChunks(key, 2 * c.size, c.size) : null
      const feed = new PassThrough()
      feed.on('error', () => undefined)
      const put = store.putChunk(key, 0, feed, c.size, upload)
      feed.write(randomBytes(Math.min(c.size - 1, 64 * 1024)))
      // The store has begun reading the body when the request goes away.
      await vi.waitFor(() => expect(feed.readableLength).toBe(0))
      feed.destroy(new Error('The chunk request ended before its body'))
      await expect(put).rejects.toThrow()
      if (upload !== null) await store.abortChunks(key, upload)
      // The store goes on taking chunks.
      const { chunks } = await putChunks([1000])
      expect(chunks).toMatchObject([{ size: 1000 }])
      await store.deleteChunks(chunks)
    })

    it('deletes chunk objects in batches of one request', async () => {
      const { chunks } = await putChunks([1000, 2000, 3000])
      const { counts, undo } = countCommands(store)
      try {
        await store.deleteChunks(chunks)
        expect(Object.fromEntries(counts)).toEqual({ DeleteObjectsCommand: 1 })
      } finally {
        undo()
      }
      expect((await openMultipartKeys(store)).filter((name) => name.startsWith('chunks/'))).toEqual(
        [],
      )
    })
  })

  it('sends a part again after a server error, whole, and stores every byte once', async () => {
    const { attempts, undo } = failParts(503, (part, attempt) => part === 2 && attempt === 1)
    try {
      const key = randomUUID()
      const bytes = randomBytes(3 * TEST_PART_SIZE + 4321)
      await storeOddPieces(await store.create(key), bytes)
      expect(attempts.get(2)).toBe(2)
      expect(attempts.get(1)).toBe(1)
      expect((await readAll(key)).equals(bytes)).toBe(true)
    } finally {
      undo()
    }
  })

  it('does not send again a part the server refuses, and leaves no multipart upload', async () => {
    const { attempts, undo } = failParts(403, (part) => part === 1)
    try {
      const key = randomUUID()
      const writer = await store.create(key)
      const bytes = randomBytes(2 * TEST_PART_SIZE + 99)
      // The failure surfaces in a later write or in the commit, whichever comes first.
      await expect(storeOddPieces(writer, bytes)).rejects.toThrow('injected 403')
      await writer.abort()
      expect(attempts.get(1)).toBe(1)
      expect(await openMultipartKeys(store)).not.toContain(key)
      await expect(store.read(key)).rejects.toThrow()
    } finally {
      undo()
    }
  })
})
