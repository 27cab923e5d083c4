/**
 * The behaviour every BlobStore must have, written once and run against each backend by
 * blob-store.fs.test.ts and blob-store.s3.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { describe, expect, it } from 'vitest'

import type { BlobStore, ResumableWriter, StoredChunk } from '../src/storage/blob-store.js'

export interface BlobStoreHarness {
  /** The store under test; called once per test after the suite's setup ran. */
  store: () => BlobStore
  /** A size that makes the backend split the blob (S3: more than one multipart part). */
  largeSize: number
  /** Keys of unfinished writes the store still holds (partial files, multipart uploads). */
  unfinished: () => Promise<string[]>
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** Writes `bytes` in pieces of `piece` bytes, as the upload transports do. */
async function writeAll(store: BlobStore, key: string, bytes: Uint8Array, piece = 1024 ** 2) {
  const writer = await store.create(key)
  for (let offset = 0; offset < bytes.length; offset += piece) {
    await writer.write(bytes.subarray(offset, offset + piece))
  }
  return writer
}

async function keys(store: BlobStore): Promise<string[]> {
  const found: string[] = []
  for await (const blob of store.list()) found.push(blob.key)
  return found
}

export function blobStoreContract(name: string, harness: BlobStoreHarness): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('stores a small blob whole and lists it with its size', async () => {
      const store = harness.store()
      const key = randomUUID()
      const bytes = randomBytes(1000)
      const writer = await writeAll(store, key, bytes, 300)
      expect(writer.bytesWritten).toBe(1000)
      await writer.commit()
      expect(await readAll(await store.read(key))).toEqual(bytes)
      let listed: { key: string; size: number } | undefined
      for await (const blob of store.list()) if (blob.key === key) listed = blob
      expect(listed).toMatchObject({ key, size: 1000 })
    })

    it('stores an empty blob', async () => {
      const store = harness.store()
      const key = randomUUID()
      await (await store.create(key)).commit()
      expect((await readAll(await store.read(key))).length).toBe(0)
    })

    it('stores a blob larger than the backend writes at once, byte for byte', async () => {
      const store = harness.store()
      const key = randomUUID()
      const bytes = randomBytes(harness.largeSize)
      // Odd-sized pieces cross every internal boundary somewhere in the middle of a write.
      const writer = await writeAll(store, key, bytes, 777_777)
      expect(writer.bytesWritten).toBe(bytes.length)
      await writer.commit()
      expect((await readAll(await store.read(key))).equals(bytes)).toBe(true)
      expect(await harness.unfinished()).not.toContain(key)
    })

    it('keeps large blobs written at the same time and one after another apart', async () => {
      const store = harness.store()
      // Writers reuse buffers between parts and between blobs: no byte may cross over.
      const blobs = Array.from({ length: 3 }, () => ({
        key: randomUUID(),
        bytes: randomBytes(harness.largeSize),
      }))
      await Promise.all(
        blobs.map(async ({ key, bytes }) => (await writeAll(store, key, bytes, 500_001)).commit()),
      )
      const later = { key: randomUUID(), bytes: randomBytes(harness.largeSize + 1) }
      await (await writeAll(store, later.key, later.bytes)).commit()
      for (const { key, bytes } of [...blobs, later]) {
        expect((await readAll(await store.read(key))).equals(bytes)).toBe(true)
      }
    })

    it('keeps a blob invisible until commit', async () => {
      const store = harness.store()
      const key = randomUUID()
      const writer = await writeAll(store, key, randomBytes(harness.largeSize))
      expect(await keys(store)).not.toContain(key)
      await expect(store.read(key)).rejects.toThrow()
      await writer.abort()
    })

    it('leaves nothing after abort, even twice, and refuses writes after it', async () => {
      const store = harness.store()
      const key = randomUUID()
      const writer = await writeAll(store, key, randomBytes(harness.largeSize))
      await writer.abort()
      await writer.abort()
      expect(await keys(store)).not.toContain(key)
      expect(await harness.unfinished()).not.toContain(key)
      await expect(writer.write(new Uint8Array(1))).rejects.toThrow('Blob writer is closed')
    })

    it('replaces a blob written again under the same key', async () => {
      const store = harness.store()
      const key = randomUUID()
      await (await writeAll(store, key, Buffer.from('first'))).commit()
      await (await writeAll(store, key, Buffer.from('second'))).commit()
      expect((await readAll(await store.read(key))).toString()).toBe('second')
    })

    it('deletes idempotently; reading a deleted or unknown blob fails', async () => {
      const store = harness.store()
      const key = randomUUID()
      await (await writeAll(store, key, randomBytes(10))).commit()
      await store.delete(key)
      await store.delete(key)
      await store.delete(randomUUID())
      expect(await keys(store)).not.toContain(key)
      await expect(store.read(key)).rejects.toThrow()
    })

    it('refuses a key that is not a UUID before touching storage', async () => {
      const store = harness.store()
      for (const key of ['../etc/passwd', 'a/b', '', randomUUID().toUpperCase()]) {
        await expect(store.create(key)).rejects.toThrow('Refusing blob key')
        await expect(store.read(key)).rejects.toThrow('Refusing blob key')
        await expect(store.delete(key)).rejects.toThrow('Refusing blob key')
      }
    })

    it('sweeps unfinished writes older than the threshold, except those kept', async () => {
      const store = harness.store()
      const [kept, swept] = [randomUUID(), randomUUID()]
      const keptWriter = await writeAll(store, kept, randomBytes(harness.largeSize))
      const sweptWriter = await writeAll(store, swept, randomBytes(harness.largeSize))
      expect(await harness.unfinished()).toEqual(expect.arrayContaining([kept, swept]))
      // Young writes survive a sweep with a threshold in the future of their start.
      expect(await store.sweepUnfinished(60 * 60_000, new Set())).toBe(0)
      expect(await store.sweepUnfinished(0, new Set([kept]))).toBeGreaterThanOrEqual(1)
      const left = await harness.unfinished()
      expect(left).toContain(kept)
      expect(left).not.toContain(swept)
      await keptWriter.abort()
      await sweptWriter.abort()
      expect(await harness.unfinished()).not.toContain(kept)
    })

    describe('chunks of sessions kept in the database', () => {
      const MiB = 1024 ** 2

      /**
       * Stores `sizes` as chunks of one session started for chunks of `chunkSize` bytes (the
       * first chunk's size unless given), the last index first unless `inOrder`; answers them in
       * order.
       */
      async function storeChunks(
        store: BlobStore,
        key: string,
        sizes: readonly number[],
        { chunkSize = sizes[0]!, inOrder = false } = {},
      ) {
        const bytes = sizes.map((size) => randomBytes(size))
        const total = sizes.reduce((sum, size) => sum + size, 0)
        const upload = await store.startChunks(key, total, chunkSize)
        const put = ([index, body]: [number, Buffer]) =>
          store.putChunk(key, index, [body], body.length, upload)
        const entries = [...bytes.entries()]
        const chunks = inOrder
          ? await entries.reduce<Promise<StoredChunk[]>>(
              async (done, entry) => [...(await done), await put(entry)],
              Promise.resolve([]),
            )
          : (await Promise.all(entries.reverse().map(put))).reverse()
        return { upload, bytes, chunks }
      }

      /** Joins the chunks, reads the blob back whole and discards the chunks. */
      async function joined(
        store: BlobStore,
        key: string,
        stored: { upload: string | null; chunks: StoredChunk[] },
      ) {
        await store.joinChunks(key, stored.chunks, stored.upload)
        const blob = await readAll(await store.read(key))
        await store.deleteChunks(stored.chunks)
        return blob
      }

      async function leftOf(key: string): Promise<string[]> {
        return (await harness.unfinished()).filter((name) => name.includes(key))
      }

      it.each([
        ['over the part minimum', [6 * MiB, 5 * MiB, 6 * MiB + 1]],
        ['under it at the end', [6 * MiB, 5 * MiB, 1 * MiB + 3]],
        ['under it in the middle', [6 * MiB, 1 * MiB, 2 * MiB + 7, 6 * MiB, 300 * 1024]],
        ['under it all along', [1 * MiB, 2 * MiB + 7]],
      ])('joins chunks %s, stored in any order, byte for byte', async (_, sizes) => {
        const store = harness.store()
        const key = randomUUID()
        const stored = await storeChunks(store, key, sizes)
        expect(await keys(store)).not.toContain(key)
        expect((await joined(store, key, stored)).equals(Buffer.concat(stored.bytes))).toBe(true)
        expect(await leftOf(key)).toEqual([])
      })

      it.each([
        ['in order', true],
        ['last first', false],
      ])('joins chunks of the size it was started for, %s, byte for byte', async (_, inOrder) => {
        const store = harness.store()
        const key = randomUUID()
        const sizes = [6 * MiB, 6 * MiB, 6 * MiB, 1 * MiB + 5]
        const stored = await storeChunks(store, key, sizes, { inOrder })
        expect(await keys(store)).not.toContain(key)
        expect((await joined(store, key, stored)).equals(Buffer.concat(stored.bytes))).toBe(true)
        expect(await leftOf(key)).toEqual([])
      })

      it('joins chunks of that size mixed with chunks of other sizes, byte for byte', async () => {
        const store = harness.store()
        const key = randomUUID()
        // A short chunk in the middle moves every later one off the stride; the last of all is
        // longer than the remainder the stride leaves.
        const sizes = [6 * MiB, 6 * MiB, 2 * MiB, 6 * MiB, 6 * MiB, 3 * MiB + 1]
        const stored = await storeChunks(store, key, sizes, { chunkSize: 6 * MiB })
        expect((await joined(store, key, stored)).equals(Buffer.concat(stored.bytes))).toBe(true)
        expect(await leftOf(key)).toEqual([])
      })

      it('joins a chunk stored again after the first attempt at its index was deleted', async () => {
        const store = harness.store()
        const key = randomUUID()
        const stored = await storeChunks(store, key, [6 * MiB, 6 * MiB, 6 * MiB, 100], {
          inOrder: true,
        })
        // As when recording the first attempt failed: deleted, then sent again with new bytes.
        for (const index of [1, 3]) {
          await store.deleteChunks([stored.chunks[index]!])
          const again = randomBytes(stored.bytes[index]!.length)
          stored.chunks[index] = await store.putChunk(
            key,
            index,
            [again],
            again.length,
            stored.upload,
          )
          stored.bytes[index] = again
        }
        expect((await joined(store, key, stored)).equals(Buffer.concat(stored.bytes))).toBe(true)
      })

      it('leaves nothing of an abandoned session once its chunks and upload are discarded', async () => {
        const store = harness.store()
        const key = randomUUID()
        const { upload, chunks } = await storeChunks(store, key, [6 * MiB, 1 * MiB])
        await store.deleteChunks(chunks)
        if (upload !== null) {
          await store.abortChunks(key, upload)
          await store.abortChunks(key, upload)
        }
        expect(await leftOf(key)).toEqual([])
        expect(await keys(store)).not.toContain(key)
      })
    })

    it('answers the health check', async () => {
      await expect(harness.store().check()).resolves.toBeUndefined()
    })

    describe('resumable writers', () => {
      /** Writes `bytes` from `from` on, in odd pieces that straddle every internal boundary. */
      async function writeFrom(writer: ResumableWriter, bytes: Buffer, from: number) {
        for (let at = from; at < bytes.length; at += 777_777) {
          await writer.write(bytes.subarray(at, Math.min(at + 777_777, bytes.length)))
        }
      }

      it('continues after a suspend from the durable point it reported, byte for byte', async () => {
        const store = harness.store()
        const key = randomUUID()
        const bytes = randomBytes(harness.largeSize)
        const cut = Math.floor(bytes.length * 0.7)
        const first = await store.createResumable(key)
        await writeFrom(first, bytes.subarray(0, cut), 0)
        const kept = await first.suspend(true)
        expect(kept.offset).toBeLessThanOrEqual(cut)
        expect(kept.offset).toBeGreaterThan(0)
        // Nothing is visible while the session may still resume.
        expect(await keys(store)).not.toContain(key)
        expect(await harness.unfinished()).toContain(key)
        const second = await store.reopen(key, kept.state, kept.offset)
        expect(second.bytesWritten).toBe(kept.offset)
        await writeFrom(second, bytes, second.bytesWritten)
        await second.commit()
        expect((await readAll(await store.read(key))).equals(bytes)).toBe(true)
        expect(await harness.unfinished()).not.toContain(key)
      })

      it('reopens at or below an offset inside the durable bytes and drops what follows', async () => {
        const store = harness.store()
        const key = randomUUID()
        const bytes = randomBytes(harness.largeSize)
        const writer = await store.createResumable(key)
        await writeFrom(writer, bytes, 0)
        const kept = await writer.suspend(true)
        expect(kept.offset).toBeGreaterThan(0)
        const asked = Math.floor(kept.offset / 2) + 3
        const reopened = await store.reopen(key, kept.state, asked)
        const from = reopened.bytesWritten
        expect(from).toBeLessThanOrEqual(asked)
        expect(reopened.durable().offset).toBe(from)
        await writeFrom(reopened, bytes, from)
        // Twice in one upload: the connection ends without a flush, losing what is not durable.
        const again = await reopened.suspend(false)
        expect(again.offset).toBeGreaterThanOrEqual(from)
        const last = await store.reopen(key, again.state, again.offset)
        await writeFrom(last, bytes, last.bytesWritten)
        await last.commit()
        expect((await readAll(await store.read(key))).equals(bytes)).toBe(true)
      })

      it('discards what a suspended writer kept', async () => {
        const store = harness.store()
        const key = randomUUID()
        const writer = await store.createResumable(key)
        await writeFrom(writer, randomBytes(harness.largeSize), 0)
        const kept = await writer.suspend(true)
        await store.discardResumable(key, kept.state)
        expect(await harness.unfinished()).not.toContain(key)
        await expect(store.reopen(key, kept.state, kept.offset)).rejects.toThrow()
      })
    })
  })
}
