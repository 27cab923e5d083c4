import { crc32 as zlibCrc32 } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { pseudoRandomBytes } from '../../test/streams.js'
import { utf8 } from '../encoding.js'
import { crc32 } from './crc32.js'

describe('crc32', () => {
  it('matches the published check values', () => {
    // The CRC-32/ISO-HDLC check value (the CRC of "123456789") and well-known strings.
    expect(crc32(utf8('123456789'))).toBe(0xcbf43926)
    expect(crc32(new Uint8Array(0))).toBe(0)
    expect(crc32(utf8('a'))).toBe(0xe8b7be43)
    expect(crc32(utf8('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339)
    expect(crc32(new Uint8Array(32))).toBe(0x190a55ad)
    expect(crc32(new Uint8Array(32).fill(0xff))).toBe(0xff6cab0b)
  })

  it('agrees with node:zlib on random data at every alignment and length', () => {
    const data = pseudoRandomBytes(4096, 7)
    for (let start = 0; start < 9; start++) {
      for (const length of [0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4000]) {
        const view = data.subarray(start, start + length)
        expect(crc32(view)).toBe(zlibCrc32(view))
      }
    }
  })

  it('continues across pieces exactly as over the whole', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.array(fc.nat(600), { maxLength: 6 }),
        (bytes, cuts) => {
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
          let crc = 0
          let from = 0
          for (const point of [...points, bytes.length]) {
            crc = crc32(bytes.subarray(from, point), crc)
            from = point
          }
          expect(crc).toBe(zlibCrc32(bytes))
        },
      ),
    )
  })

  it('handles a view into a larger buffer without reading outside it', () => {
    const buffer = pseudoRandomBytes(100, 3)
    const view = buffer.subarray(13, 77)
    expect(crc32(view)).toBe(zlibCrc32(buffer.slice(13, 77)))
  })
})
