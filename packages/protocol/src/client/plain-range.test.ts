import { describe, expect, it } from 'vitest'

import { encryptedSize, RECORD_SIZE } from '../sizes.js'
import { answerRange, recordSpan, sealedRecordLength } from './plain-range.js'

const MiB = RECORD_SIZE
const SEALED = MiB + 16

describe('recordSpan', () => {
  it('maps bytes inside the first record to record 0 alone', () => {
    expect(recordSpan(0, 1, 10 * MiB)).toEqual({
      first: 0,
      last: 0,
      cipherFrom: 0,
      cipherTo: SEALED - 1,
      skip: 0,
    })
    expect(recordSpan(100, 200, 10 * MiB)).toMatchObject({ first: 0, last: 0, skip: 100 })
  })

  it('keeps a range that ends on a record boundary inside its records', () => {
    expect(recordSpan(0, MiB, 10 * MiB)).toMatchObject({ first: 0, last: 0, cipherTo: SEALED - 1 })
    expect(recordSpan(MiB, 2 * MiB, 10 * MiB)).toEqual({
      first: 1,
      last: 1,
      cipherFrom: SEALED,
      cipherTo: 2 * SEALED - 1,
      skip: 0,
    })
  })

  it('takes both records of a range that crosses a boundary by one byte', () => {
    expect(recordSpan(MiB - 1, MiB + 1, 10 * MiB)).toEqual({
      first: 0,
      last: 1,
      cipherFrom: 0,
      cipherTo: 2 * SEALED - 1,
      skip: MiB - 1,
    })
  })

  it('ends at the last byte of the ciphertext for a short last record', () => {
    const size = 3 * MiB + 5
    const span = recordSpan(3 * MiB + 2, size, size)
    expect(span).toEqual({
      first: 3,
      last: 3,
      cipherFrom: 3 * SEALED,
      cipherTo: encryptedSize(size) - 1,
      skip: 2,
    })
    expect(sealedRecordLength(3, encryptedSize(size))).toBe(5 + 16)
    expect(sealedRecordLength(2, encryptedSize(size))).toBe(SEALED)
  })

  it('refuses empty ranges and ranges outside the payload', () => {
    expect(() => recordSpan(5, 5, 10)).toThrow(RangeError)
    expect(() => recordSpan(0, 11, 10)).toThrow(RangeError)
    expect(() => recordSpan(-1, 3, 10)).toThrow(RangeError)
    expect(() => recordSpan(0.5, 3, 10)).toThrow(RangeError)
  })
})

describe('answerRange', () => {
  const size = 5 * MiB + 123

  it('answers 206 with Content-Range and Content-Length for a closed range', () => {
    expect(answerRange('bytes=0-1', size, 'video/webm')).toEqual({
      status: 206,
      start: 0,
      end: 2,
      headers: {
        'Content-Type': 'video/webm',
        'Accept-Ranges': 'bytes',
        'Content-Length': '2',
        'Content-Range': `bytes 0-1/${size}`,
      },
    })
  })

  it('runs an open-ended range to the end', () => {
    const answer = answerRange('bytes=1048576-', size, 'video/mp4')
    expect(answer).toMatchObject({ status: 206, start: MiB, end: size })
    expect(answer.headers['Content-Range']).toBe(`bytes ${MiB}-${size - 1}/${size}`)
    expect(answer.headers['Content-Length']).toBe(String(size - MiB))
  })

  it('cuts a last byte past the end to the end', () => {
    const answer = answerRange(`bytes=${size - 3}-${size + 100}`, size, 'audio/ogg')
    expect(answer).toMatchObject({ status: 206, start: size - 3, end: size })
    expect(answer.headers['Content-Length']).toBe('3')
  })

  it('serves a suffix range as the last bytes, or the whole payload when it is longer', () => {
    expect(answerRange('bytes=-100', size, 'video/webm')).toMatchObject({
      status: 206,
      start: size - 100,
      end: size,
    })
    const longer = answerRange(`bytes=-${size + 1}`, size, 'video/webm')
    expect(longer).toMatchObject({ status: 206, start: 0, end: size })
    expect(longer.headers['Content-Range']).toBe(`bytes 0-${size - 1}/${size}`)
  })

  it('answers 416 with bytes */size for a range wholly outside the payload', () => {
    for (const header of [`bytes=${size}-`, `bytes=${size + 5}-${size + 9}`, 'bytes=-0']) {
      const answer = answerRange(header, size, 'video/webm')
      expect(answer.status).toBe(416)
      expect(answer.headers['Content-Range']).toBe(`bytes */${size}`)
      expect(answer.headers['Content-Length']).toBeUndefined()
    }
    expect(answerRange('bytes=0-', 0, 'video/webm').status).toBe(416)
    expect(answerRange('bytes=-1', 0, 'video/webm').status).toBe(416)
  })

  it('answers 200 with the whole payload for no range or one it does not serve', () => {
    for (const header of [null, 'items=0-1', 'bytes=0-1,4-5', 'bytes=5-2', 'bytes=-', 'bytes=x-']) {
      const answer = answerRange(header, size, 'video/webm')
      expect(answer).toMatchObject({ status: 200, start: 0, end: size })
      expect(answer.headers['Content-Length']).toBe(String(size))
      expect(answer.headers['Content-Range']).toBeUndefined()
    }
  })
})
