import { describe, expect, it } from 'vitest'
import { collect, pseudoRandomBytes, sameBytes, streamOf } from '../../test/streams.js'
import { concatBytes } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { encryptedSize, RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'
import { deriveUploadKeys } from './keys.js'
import {
  createDecryptStream,
  createEncryptStream,
  isLastRecordNonce,
  recordNonce,
  webCryptoRecords,
  type RecordCipher,
} from './stream.js'

const SMALL = 64

async function fileKey(seed = 1): Promise<CryptoKey> {
  const keys = await deriveUploadKeys(pseudoRandomBytes(32, seed), pseudoRandomBytes(32, seed + 1))
  return keys.fileKey
}

async function encrypt(key: CryptoKey, data: Uint8Array, recordSize?: number, pieces?: number[]) {
  const options = recordSize ? { recordSize } : {}
  return collect(streamOf(data, pieces).pipeThrough(createEncryptStream(key, options)))
}

async function decrypt(key: CryptoKey, data: Uint8Array, recordSize?: number, pieces?: number[]) {
  const options = recordSize ? { recordSize } : {}
  return collect(streamOf(data, pieces).pipeThrough(createDecryptStream(key, options)))
}

async function decryptError(
  key: CryptoKey,
  data: Uint8Array,
  recordSize?: number,
): Promise<ProtocolError> {
  try {
    await decrypt(key, data, recordSize)
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError)
    return error as ProtocolError
  }
  throw new Error('decryption unexpectedly succeeded')
}

function records(ciphertext: Uint8Array, recordSize: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < ciphertext.length; i += recordSize + RECORD_TAG_SIZE) {
    out.push(ciphertext.slice(i, i + recordSize + RECORD_TAG_SIZE))
  }
  return out
}

const join = (parts: Uint8Array[]) => concatBytes(...parts)

describe('record nonce', () => {
  it('is the big-endian counter followed by the last-record flag', () => {
    expect(Array.from(recordNonce(0, false))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    expect(Array.from(recordNonce(0x0102, true))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1])
    expect(Array.from(recordNonce(Number.MAX_SAFE_INTEGER - 1, false)).slice(4)).toEqual([
      0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0,
    ])
  })

  it('tells the last record by its flag alone', () => {
    expect(isLastRecordNonce(recordNonce(7, true))).toBe(true)
    expect(isLastRecordNonce(recordNonce(7, false))).toBe(false)
    expect(isLastRecordNonce(recordNonce(1, false))).toBe(false)
    expect(isLastRecordNonce(recordNonce(0, true))).toBe(true)
  })
})

describe('round trips at the real record size', () => {
  const sizes = [0, 1, RECORD_SIZE - 1, RECORD_SIZE, RECORD_SIZE + 1, 5 * RECORD_SIZE + 12345]
  for (const size of sizes) {
    it(`${size} bytes`, async () => {
      const key = await fileKey()
      const data = pseudoRandomBytes(size, size + 7)
      const ciphertext = await encrypt(key, data, undefined, [65536, 1000, 300000])
      expect(ciphertext.length).toBe(encryptedSize(size))
      expect(
        sameBytes(await decrypt(key, ciphertext, undefined, [777, 2 * RECORD_SIZE]), data),
      ).toBe(true)
    })
  }
})

describe('round trips at every boundary of a small record size', () => {
  it('gives the same bytes whatever the input is cut into', async () => {
    const key = await fileKey()
    for (let size = 0; size <= 4 * SMALL + 2; size++) {
      const data = pseudoRandomBytes(size, size + 1)
      const whole = await encrypt(key, data, SMALL)
      expect(whole.length).toBe(encryptedSize(size, SMALL))
      const split = await encrypt(key, data, SMALL, [1, 7, SMALL, 3])
      expect(sameBytes(split, whole)).toBe(true)
      expect(
        sameBytes(await decrypt(key, whole, SMALL, [5, SMALL + RECORD_TAG_SIZE, 1]), data),
      ).toBe(true)
    }
  })

  it('yields ciphertext that depends only on key and plaintext (deterministic nonces)', async () => {
    const data = pseudoRandomBytes(1000)
    const first = await encrypt(await fileKey(1), data, SMALL)
    expect(sameBytes(first, await encrypt(await fileKey(1), data, SMALL))).toBe(true)
    expect(sameBytes(first, await encrypt(await fileKey(2), data, SMALL))).toBe(false)
  })
})

describe('tampering is detected by the cipher', () => {
  const size = 5 * SMALL + 10 // six records: five full, one short
  const setup = async () => {
    const key = await fileKey()
    const data = pseudoRandomBytes(size)
    const ciphertext = await encrypt(key, data, SMALL)
    return { key, data, ciphertext, parts: records(ciphertext, SMALL) }
  }

  it('a flipped byte anywhere', async () => {
    const { key, ciphertext } = await setup()
    for (const at of [0, SMALL, SMALL + 16, ciphertext.length - 1]) {
      const bad = ciphertext.slice()
      bad[at]! ^= 1
      expect((await decryptError(key, bad, SMALL)).code).toBe('DECRYPT_FAILED')
    }
  })

  it('a dropped middle record', async () => {
    const { key, parts } = await setup()
    const bad = join([...parts.slice(0, 2), ...parts.slice(3)])
    expect((await decryptError(key, bad, SMALL)).code).toBe('DECRYPT_FAILED')
  })

  it('two records swapped', async () => {
    const { key, parts } = await setup()
    const bad = join([parts[1]!, parts[0]!, ...parts.slice(2)])
    expect((await decryptError(key, bad, SMALL)).code).toBe('DECRYPT_FAILED')
  })

  it('a duplicated record', async () => {
    const { key, parts } = await setup()
    const bad = join([parts[0]!, parts[0]!, ...parts.slice(1)])
    expect((await decryptError(key, bad, SMALL)).code).toBe('DECRYPT_FAILED')
  })

  it('truncation at a record boundary', async () => {
    const { key, parts } = await setup()
    for (let keep = 1; keep < parts.length; keep++) {
      const error = await decryptError(key, join(parts.slice(0, keep)), SMALL)
      expect(error.code).toBe('TRUNCATED')
    }
  })

  it('truncation inside a record, and an empty stream', async () => {
    const { key, ciphertext } = await setup()
    expect((await decryptError(key, ciphertext.slice(0, ciphertext.length - 3), SMALL)).code).toBe(
      'DECRYPT_FAILED',
    )
    expect((await decryptError(key, new Uint8Array(0), SMALL)).code).toBe('TRUNCATED')
    expect((await decryptError(key, new Uint8Array(10), SMALL)).code).toBe('TRUNCATED')
  })

  it('data appended after the last record', async () => {
    const { key, ciphertext, parts } = await setup()
    const extra = join([ciphertext, parts[0]!])
    expect((await decryptError(key, extra, SMALL)).code).toBe('DECRYPT_FAILED')
    expect((await decryptError(key, join([ciphertext, new Uint8Array([0])]), SMALL)).code).toBe(
      'DECRYPT_FAILED',
    )
  })

  it('records spliced in from another stream under another key', async () => {
    const { key, data, parts } = await setup()
    const other = records(await encrypt(await fileKey(9), data, SMALL), SMALL)
    const bad = join([parts[0]!, other[1]!, ...parts.slice(2)])
    expect((await decryptError(key, bad, SMALL)).code).toBe('DECRYPT_FAILED')
  })

  it('a wrong key', async () => {
    const { ciphertext } = await setup()
    const error = await decryptError(await fileKey(3), ciphertext, SMALL)
    expect(error.code).toBe('DECRYPT_FAILED')
    expect(error.message).toBe('Decryption failed: the data is corrupt or the key is wrong')
  })

  it('a whole final record that was sealed as a middle record, at the real size', async () => {
    const key = await fileKey()
    const data = pseudoRandomBytes(2 * RECORD_SIZE + 5)
    const parts = records(await encrypt(key, data), RECORD_SIZE)
    expect((await decryptError(key, join(parts.slice(0, 2)))).code).toBe('TRUNCATED')
  })
})

describe('stream input', () => {
  it('refuses chunks that are not bytes', async () => {
    const key = await fileKey()
    const input = new ReadableStream<unknown>({
      start(controller) {
        controller.enqueue('text')
        controller.close()
      },
    }) as ReadableStream<Uint8Array>
    await expect(collect(input.pipeThrough(createEncryptStream(key)))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })
})

describe('a record cipher of the caller', () => {
  /** Delegates to WebCrypto, noting every call and handing records back out of order. */
  function recordingCipher() {
    const calls: { op: 'seal' | 'open'; nonce: Uint8Array; size: number }[] = []
    const later = <T>(value: Promise<T>, delayMs: number) =>
      value.then((v) => new Promise<T>((resolve) => setTimeout(() => resolve(v), delayMs)))
    const cipher: RecordCipher = {
      seal(key, nonce, record) {
        calls.push({ op: 'seal', nonce: nonce.slice(), size: record.length })
        // Earlier records finish later: the stream must still emit them in order.
        return later(webCryptoRecords.seal(key, nonce, record), 8 - (calls.length % 8))
      },
      open(key, nonce, record) {
        calls.push({ op: 'open', nonce: nonce.slice(), size: record.length })
        return later(webCryptoRecords.open(key, nonce, record), 8 - (calls.length % 8))
      },
    }
    return { cipher, calls }
  }

  it('seals and opens every record through it, with the same bytes as the default', async () => {
    const key = await fileKey()
    const data = pseudoRandomBytes(20 * SMALL + 5, 3)
    const { cipher, calls } = recordingCipher()
    const sealed = await collect(
      streamOf(data, [SMALL - 1, 3 * SMALL]).pipeThrough(
        createEncryptStream(key, { recordSize: SMALL, cipher }),
      ),
    )
    expect(sameBytes(sealed, await encrypt(key, data, SMALL))).toBe(true)
    expect(calls.map((c) => c.op)).toEqual(Array(21).fill('seal'))
    expect(calls.map((c) => c.nonce[11])).toEqual([...Array(20).fill(0), 1])
    expect(calls.at(-1)!.size).toBe(5)

    calls.length = 0
    const opened = await collect(
      streamOf(sealed, [SMALL + 3]).pipeThrough(
        createDecryptStream(key, { recordSize: SMALL, cipher }),
      ),
    )
    expect(sameBytes(opened, data)).toBe(true)
    expect(calls.map((c) => c.op)).toEqual(Array(21).fill('open'))
    expect(calls.map((c) => c.size)).toEqual([...Array(20).fill(SMALL + RECORD_TAG_SIZE), 21])
  })

  it('assembles records that span input chunks in its buffers and gives them up, never the last', async () => {
    const key = await fileKey()
    const data = pseudoRandomBytes(6 * SMALL + 5, 4)
    const lent = new Set<ArrayBuffer>()
    const seen: { given: boolean; lent: boolean; last: boolean }[] = []
    const cipher: RecordCipher = {
      seal(key, nonce, record, given) {
        seen.push({
          given: given === true,
          lent: lent.has(record.buffer as ArrayBuffer),
          last: isLastRecordNonce(nonce),
        })
        return webCryptoRecords.seal(key, nonce, record)
      },
      open(key, nonce, record, given) {
        seen.push({
          given: given === true,
          lent: lent.has(record.buffer as ArrayBuffer),
          last: isLastRecordNonce(nonce),
        })
        return webCryptoRecords.open(key, nonce, record)
      },
      recordBuffer(bytes) {
        const buffer = new ArrayBuffer(bytes + 7)
        lent.add(buffer)
        return buffer
      },
    }
    // Pieces of 3 records, then of half a record: the first three records are views of the input.
    const sealed = await collect(
      streamOf(data, [3 * SMALL, ...Array(8).fill(SMALL / 2)]).pipeThrough(
        createEncryptStream(key, { recordSize: SMALL, cipher }),
      ),
    )
    expect(sameBytes(sealed, await encrypt(key, data, SMALL))).toBe(true)
    expect(seen.map((s) => [s.given, s.lent, s.last])).toEqual([
      ...Array(3).fill([false, false, false]),
      ...Array(3).fill([true, true, false]),
      [false, false, true],
    ])

    seen.length = 0
    const opened = await collect(
      streamOf(sealed, Array(40).fill(SMALL / 4)).pipeThrough(
        createDecryptStream(key, { recordSize: SMALL, cipher }),
      ),
    )
    expect(sameBytes(opened, data)).toBe(true)
    // The last record stays the stream's, to be opened again when it fails.
    expect(seen.map((s) => [s.given, s.lent, s.last])).toEqual([
      ...Array(6).fill([true, true, false]),
      [false, false, true],
    ])
  })

  it('reports a record it refuses as DECRYPT_FAILED', async () => {
    const key = await fileKey()
    const sealed = await encrypt(key, pseudoRandomBytes(3 * SMALL), SMALL)
    const refusing: RecordCipher = {
      seal: webCryptoRecords.seal,
      open: () => Promise.reject(new Error('tag mismatch')),
    }
    const failure = await collect(
      streamOf(sealed).pipeThrough(
        createDecryptStream(key, { recordSize: SMALL, cipher: refusing }),
      ),
    ).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect((failure as ProtocolError).code).toBe('DECRYPT_FAILED')
  })
})
