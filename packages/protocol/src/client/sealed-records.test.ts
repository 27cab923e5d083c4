/** The record tags that prove a record sealed again is the record sealed before. */
import { describe, expect, it } from 'vitest'

import { collect, pseudoRandomBytes, sameBytes, streamOf } from '../../test/streams.js'
import { deriveUploadKeys } from '../crypto/keys.js'
import { ProtocolError } from '../errors.js'
import { RECORD_TAG_SIZE } from '../sizes.js'
import { ciphertextFrom } from './ciphertext-from.js'
import { admitRecords, RECORDS_AWAITING_KEEPER, SealedRecords } from './sealed-records.js'
import { bytesSource } from './source.js'

const changed = () => new ProtocolError('SOURCE_CHANGED', 'changed')

/** A sealed record of `length` bytes whose tag is `tag` repeated. */
function record(tag: number, length = 40): Uint8Array {
  const bytes = new Uint8Array(length)
  bytes.fill(tag, length - RECORD_TAG_SIZE)
  return bytes
}

describe('SealedRecords', () => {
  it('records a tag the first time and compares it every later time', () => {
    const sealed = new SealedRecords(3)
    sealed.admit(0, record(1), changed)
    sealed.admit(1, record(2), changed)
    expect(sealed.count).toBe(2)
    expect(() => sealed.admit(0, record(1), changed)).not.toThrow()
    expect(() => sealed.admit(1, record(9), changed)).toThrow('changed')
    expect(sealed.count).toBe(2)
  })

  it('refuses a record past the next one, and more records than the payload has', () => {
    const sealed = new SealedRecords(1)
    expect(() => sealed.admit(1, record(1), changed)).toThrow(/never sent/)
    sealed.admit(0, record(1), changed)
    expect(() => sealed.admit(1, record(1), changed)).toThrow(/more records/)
  })

  it('starts from the tags an earlier run kept, and refuses tags that do not fit', () => {
    const kept = new Uint8Array(2 * RECORD_TAG_SIZE).fill(5)
    const sealed = new SealedRecords(4, kept)
    expect(sealed.count).toBe(2)
    expect(() => sealed.admit(1, record(6), changed)).toThrow('changed')
    expect(() => new SealedRecords(4, new Uint8Array(17))).toThrow(/do not fit/)
    expect(() => new SealedRecords(1, kept)).toThrow(/do not fit/)
  })

  it('lets a record go on only once the keeper has its tag', async () => {
    let kept = 0
    const sealed = new SealedRecords(20, undefined, async (index, tags) => {
      expect(index).toBe(kept)
      await new Promise((resolve) => setTimeout(resolve, 0))
      kept += tags.length / RECORD_TAG_SIZE
    })
    const records = Array.from({ length: 10 }, (_, i) => record(i + 1))
    const out: Uint8Array[] = []
    await new ReadableStream<Uint8Array>({
      start(controller) {
        for (const r of records) controller.enqueue(r)
        controller.close()
      },
    })
      .pipeThrough(admitRecords(sealed, 0, changed))
      .pipeTo(
        new WritableStream({
          write: (r) => {
            expect(kept).toBeGreaterThan(out.length)
            out.push(r)
          },
        }),
      )
    expect(out).toEqual(records)
    expect(kept).toBe(10)
    expect(RECORDS_AWAITING_KEEPER).toBeGreaterThan(0)
  })

  it('fails the records waiting when the keeper fails', async () => {
    const sealed = new SealedRecords(2, undefined, () => Promise.reject(new Error('disk full')))
    const stream = streamOf(record(1)).pipeThrough(admitRecords(sealed, 0, changed))
    await expect(collect(stream)).rejects.toThrow('disk full')
  })
})

describe('ciphertextFrom with the tags of earlier reads', () => {
  it('starts one record before a resume that would seal nothing again, and compares it', async () => {
    const { fileKey } = await deriveUploadKeys(pseudoRandomBytes(32, 1), pseudoRandomBytes(32, 2))
    const sealedSize = 64 + RECORD_TAG_SIZE
    const plain = pseudoRandomBytes(4 * 64, 3)
    const full = await collect(ciphertextFrom(bytesSource(plain), fileKey, { recordSize: 64 })(0))
    // An earlier run sealed records 0 and 1, and the server holds both: it continues at record 2.
    const tags = new Uint8Array([
      ...full.subarray(sealedSize - RECORD_TAG_SIZE, sealedSize),
      ...full.subarray(2 * sealedSize - RECORD_TAG_SIZE, 2 * sealedSize),
    ])
    const same = ciphertextFrom(bytesSource(plain), fileKey, {
      recordSize: 64,
      sealed: new SealedRecords(4, tags),
    })
    expect(sameBytes(await collect(same(2 * sealedSize)), full.subarray(2 * sealedSize))).toBe(true)
    // Record 1 is read again and compared, so a source overwritten meanwhile is seen.
    const other = ciphertextFrom(bytesSource(pseudoRandomBytes(4 * 64, 4)), fileKey, {
      recordSize: 64,
      sealed: new SealedRecords(4, tags),
    })
    await expect(collect(other(2 * sealedSize))).rejects.toMatchObject({ code: 'SOURCE_CHANGED' })
  })
})
