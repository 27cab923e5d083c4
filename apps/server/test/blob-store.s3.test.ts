/**
 * The BlobStore contract on the S3 backend against a real radosgw, and how its writer treats a
 * part upload that fails.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { radosgwMissing, startRadosgw, type Radosgw } from '@fileshare/testing/radosgw'

import type { BlobWriter } from '../src/storage/blob-store.js'
import type { S3BlobStore } from '../src/storage/s3.js'
import { blobStoreContract } from './blob-store.contract.js'
import { openMultipartKeys, openTestStore, TEST_PART_SIZE } from './s3-backend.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('S3 blob store', { timeout: 30_000 }, () => {
  let gateway: Radosgw | undefined
  let store: S3BlobStore

  beforeAll(async () => {
    gateway = await startRadosgw()
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
