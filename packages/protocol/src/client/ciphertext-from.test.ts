import { describe, expect, it } from 'vitest'

import { collect, pseudoRandomBytes, sameBytes, streamOf } from '../../test/streams.js'
import { deriveUploadKeys } from '../crypto/keys.js'
import { createEncryptStream } from '../crypto/stream.js'
import { encryptedSize, RECORD_TAG_SIZE } from '../sizes.js'
import { ciphertextFrom } from './ciphertext-from.js'
import { bytesSource, type PayloadSource } from './source.js'

const RECORD = 64
const SEALED = RECORD + RECORD_TAG_SIZE

async function fileKey(): Promise<CryptoKey> {
  const keys = await deriveUploadKeys(pseudoRandomBytes(32, 7), pseudoRandomBytes(32, 8))
  return keys.fileKey
}

/** A source read in odd pieces, without `streamFrom`: a resume drops the bytes before it. */
function piecewise(bytes: Uint8Array): PayloadSource {
  return { size: bytes.length, stream: () => streamOf(bytes, [5, 17, 64, 1]) }
}

describe('the record cipher is deterministic', () => {
  it('gives the same ciphertext for the same key, index and plaintext', async () => {
    const key = await fileKey()
    const plain = pseudoRandomBytes(5 * RECORD + 9, 3)
    const once = await collect(
      streamOf(plain).pipeThrough(createEncryptStream(key, { recordSize: RECORD })),
    )
    const again = await collect(
      streamOf(plain, [3, 100]).pipeThrough(createEncryptStream(key, { recordSize: RECORD })),
    )
    expect(sameBytes(once, again)).toBe(true)
    // A stream started at record 2 with the plaintext from there yields the same records.
    const fromTwo = await collect(
      streamOf(plain.subarray(2 * RECORD)).pipeThrough(
        createEncryptStream(key, { recordSize: RECORD, startIndex: 2 }),
      ),
    )
    expect(sameBytes(fromTwo, once.subarray(2 * SEALED))).toBe(true)
  })
})

describe('ciphertextFrom', () => {
  for (const size of [0, 1, RECORD, 3 * RECORD, 3 * RECORD + 10]) {
    it(`answers the original ciphertext from every offset of a ${size}-byte payload`, async () => {
      const key = await fileKey()
      const plain = pseudoRandomBytes(size, size + 1)
      const full = await collect(
        streamOf(plain).pipeThrough(createEncryptStream(key, { recordSize: RECORD })),
      )
      expect(full.length).toBe(encryptedSize(size, RECORD))
      const blob = new Blob([plain as Uint8Array<ArrayBuffer>])
      for (const source of [bytesSource(plain), piecewise(plain), blob]) {
        const from = ciphertextFrom(source, key, { recordSize: RECORD })
        for (let offset = 0; offset <= full.length; offset++) {
          const rest = await collect(from(offset))
          expect(sameBytes(rest, full.subarray(offset)), `offset ${offset}`).toBe(true)
        }
      }
    })
  }

  it('reads the source from the record boundary when it can seek', async () => {
    const key = await fileKey()
    const plain = pseudoRandomBytes(4 * RECORD, 2)
    const asked: number[] = []
    const source: PayloadSource = {
      ...bytesSource(plain),
      streamFrom: (offset) => {
        asked.push(offset)
        return streamOf(plain.subarray(offset))
      },
    }
    const from = ciphertextFrom(source, key, { recordSize: RECORD })
    const full = await collect(from(0))
    const rest = await collect(from(2 * SEALED + 7))
    expect(asked).toEqual([2 * RECORD])
    expect(sameBytes(rest, full.subarray(2 * SEALED + 7))).toBe(true)
  })

  it('refuses an offset outside the ciphertext', async () => {
    const from = ciphertextFrom(bytesSource(new Uint8Array(10)), await fileKey())
    expect(() => from(-1)).toThrow(/No ciphertext offset/)
    expect(() => from(10 + RECORD_TAG_SIZE + 1)).toThrow(/No ciphertext offset/)
  })
})
