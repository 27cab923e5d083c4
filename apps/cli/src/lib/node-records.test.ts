/** The command line's node:crypto record cipher against the protocol's WebCrypto one. */
import { randomBytes } from 'node:crypto'

import {
  CipherJobError,
  createDecryptStream,
  createEncryptStream,
  deriveUploadKeys,
  generateSecret,
  generateUploadSalt,
  ProtocolError,
  recordNonce,
  webCryptoRecords,
} from '@fileshare/protocol'
import { afterAll, describe, expect, it } from 'vitest'

import { closeCipherThreads, nodeRecords, startCipherThreads } from './node-records.js'
import {
  acquireBuffer,
  freeBufferCount,
  handOn,
  isHandedOn,
  releaseBuffer,
} from './record-buffers.js'

afterAll(closeCipherThreads)

async function fileKey(): Promise<CryptoKey> {
  return (await deriveUploadKeys(generateSecret(), generateUploadSalt())).fileKey
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const part of stream) parts.push(part)
  return Buffer.concat(parts)
}

/**
 * `bytes` in pieces of `piece` bytes: views of `bytes`, or with `handedOn` copies in record
 * buffers handed on whole, as the command's own sources deliver them (which may then move to a
 * cipher thread).
 */
function streamOf(bytes: Uint8Array, piece: number, handedOn = false): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      const view = bytes.subarray(at, at + piece)
      at += piece
      if (!handedOn) return controller.enqueue(view)
      const buffer = acquireBuffer()
      new Uint8Array(buffer).set(view)
      controller.enqueue(handOn(buffer, view.length))
    },
  })
}

describe('node:crypto record cipher', () => {
  it('seals to the same bytes as WebCrypto, and each opens what the other sealed', async () => {
    const key = await fileKey()
    for (const size of [0, 1, 1000, 1024 * 1024]) {
      const record = randomBytes(size)
      const nonce = recordNonce(size, size === 0)
      const sealed = await nodeRecords.seal(key, nonce, record)
      const reference = await webCryptoRecords.seal(key, nonce, record)
      expect(Buffer.from(sealed).equals(Buffer.from(reference))).toBe(true)
      expect(Buffer.from(await nodeRecords.open(key, nonce, reference)).equals(record)).toBe(true)
      expect(Buffer.from(await webCryptoRecords.open(key, nonce, sealed)).equals(record)).toBe(true)
    }
  })

  it('seals a view into a larger buffer without touching the rest of it', async () => {
    const key = await fileKey()
    const whole = randomBytes(3000)
    const copy = Buffer.from(whole)
    const view = whole.subarray(1000, 2000)
    const nonce = recordNonce(7, false)
    const sealed = await nodeRecords.seal(key, nonce, view)
    expect(whole.equals(copy)).toBe(true)
    expect(Buffer.from(await webCryptoRecords.open(key, nonce, sealed)).equals(view)).toBe(true)
  })

  it('refuses a flipped byte, a wrong nonce, a wrong key and a record shorter than its tag', async () => {
    const key = await fileKey()
    const nonce = recordNonce(3, false)
    const sealed = Buffer.from(await nodeRecords.seal(key, nonce, randomBytes(500)))
    const flipped = Buffer.from(sealed)
    flipped[100]! ^= 1
    await expect(nodeRecords.open(key, nonce, flipped)).rejects.toThrow()
    await expect(nodeRecords.open(key, recordNonce(3, true), sealed)).rejects.toThrow()
    await expect(nodeRecords.open(await fileKey(), nonce, sealed)).rejects.toThrow()
    await expect(nodeRecords.open(key, nonce, sealed.subarray(0, 15))).rejects.toThrow()
  })

  it('streams a multi-record payload both ways, and a tampered one fails as DECRYPT_FAILED', async () => {
    const key = await fileKey()
    const data = randomBytes(3 * 1024 * 1024 + 12345)
    const sealed = await collect(
      streamOf(data, 200_000).pipeThrough(createEncryptStream(key, { cipher: nodeRecords })),
    )
    const reference = await collect(streamOf(data, 1 << 20).pipeThrough(createEncryptStream(key)))
    expect(sealed.equals(reference)).toBe(true)
    const opened = await collect(
      streamOf(sealed, 300_001).pipeThrough(createDecryptStream(key, { cipher: nodeRecords })),
    )
    expect(opened.equals(data)).toBe(true)

    sealed[2 * 1024 * 1024 + 40]! ^= 0x80
    const failure = await collect(
      streamOf(sealed, 65536).pipeThrough(createDecryptStream(key, { cipher: nodeRecords })),
    ).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect((failure as ProtocolError).code).toBe('DECRYPT_FAILED')
  })

  it('moves handed-on record buffers through the cipher threads and hands the output on', async () => {
    const key = await fileKey()
    await startCipherThreads()
    const plains = Array.from({ length: 12 }, () => randomBytes(1024 * 1024))
    const inputs = plains.map(() => acquireBuffer())
    const sealed = await Promise.all(
      plains.map((plain, i) => {
        new Uint8Array(inputs[i]!).set(plain)
        return nodeRecords.seal(key, recordNonce(i, false), handOn(inputs[i]!, plain.length))
      }),
    )
    for (const [i, record] of sealed.entries()) {
      const reference = await webCryptoRecords.seal(key, recordNonce(i, false), plains[i]!)
      expect(Buffer.from(record).equals(Buffer.from(reference))).toBe(true)
      expect(isHandedOn(record)).toBe(true)
      // Moved to a thread and back: the same memory under a new ArrayBuffer, the input detached.
      expect(record.buffer).not.toBe(inputs[i])
      expect(inputs[i]!.byteLength).toBe(0)
    }
    const opened = await Promise.all(
      sealed.map((record, i) => nodeRecords.open(key, recordNonce(i, false), record)),
    )
    const before = freeBufferCount()
    for (const [i, record] of opened.entries()) {
      expect(Buffer.from(record).equals(plains[i]!)).toBe(true)
      releaseBuffer(record)
    }
    expect(freeBufferCount()).toBeGreaterThan(before)
  })

  it('copies a record it may not move into one of the record buffers, which comes back handed on', async () => {
    const key = await fileKey()
    await startCipherThreads()
    const spare = acquireBuffer()
    releaseBuffer(handOn(spare, 1))
    const before = freeBufferCount()
    const whole = randomBytes(3 * 1024 * 1024)
    const view = whole.subarray(1024 * 1024, 2 * 1024 * 1024)
    const sealed = await nodeRecords.seal(key, recordNonce(2, false), view)
    const reference = await webCryptoRecords.seal(key, recordNonce(2, false), view)
    expect(Buffer.from(sealed).equals(Buffer.from(reference))).toBe(true)
    // The copy took a free buffer instead of a new one, and the output can be given back.
    expect(freeBufferCount()).toBe(before - 1)
    expect(isHandedOn(sealed)).toBe(true)
    releaseBuffer(sealed)
    expect(freeBufferCount()).toBe(before)
  })

  // Security: a tampered record fails on a cipher thread as it does here, and yields nothing.
  it('fails a tampered record opened on a cipher thread', async () => {
    const key = await fileKey()
    await startCipherThreads()
    const nonce = recordNonce(4, false)
    const sealed = Buffer.from(await webCryptoRecords.seal(key, nonce, randomBytes(1024 * 1024)))
    sealed[500_000]! ^= 1
    const buffer = acquireBuffer()
    new Uint8Array(buffer).set(sealed)
    await expect(nodeRecords.open(key, nonce, handOn(buffer, sealed.length))).rejects.toThrow(
      new CipherJobError('The record cipher failed (Error)'),
    )
    expect(buffer.byteLength).toBe(0) // it went to the thread
  })

  // Security: a stream cut at a record boundary is TRUNCATED, not taken as complete. Its records
  // are handed on, so they could move to a cipher thread: the one opened as a last record must
  // stay here, whole, to be opened again as an inner one.
  it('names a stream cut after a whole record TRUNCATED', async () => {
    const key = await fileKey()
    await startCipherThreads()
    const data = randomBytes(3 * 1024 * 1024 + 100)
    const sealed = await collect(
      streamOf(data, 1 << 20).pipeThrough(createEncryptStream(key, { cipher: nodeRecords })),
    )
    const cut = sealed.subarray(0, 2 * (1024 * 1024 + 16))
    const failure = await collect(
      streamOf(cut, 1024 * 1024 + 16, true).pipeThrough(
        createDecryptStream(key, { cipher: nodeRecords }),
      ),
    ).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect((failure as ProtocolError).code).toBe('TRUNCATED')
  })
})
