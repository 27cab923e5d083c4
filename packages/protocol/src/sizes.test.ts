import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encryptedSize, plainSize, RECORD_SIZE, recordCount } from './sizes.js'

describe('encryptedSize', () => {
  it('adds one tag per record, and one for the empty payload', () => {
    expect(encryptedSize(0)).toBe(16)
    expect(encryptedSize(1)).toBe(17)
    expect(encryptedSize(RECORD_SIZE)).toBe(RECORD_SIZE + 16)
    expect(encryptedSize(RECORD_SIZE + 1)).toBe(RECORD_SIZE + 1 + 32)
    expect(encryptedSize(4 * 1024 ** 3)).toBe(4 * 1024 ** 3 + 4096 * 16)
    expect(recordCount(3 * RECORD_SIZE)).toBe(3)
  })

  it('is inverted by plainSize for every size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 45 }),
        fc.constantFrom(64, 1000, RECORD_SIZE),
        (n, r) => {
          expect(plainSize(encryptedSize(n, r), r)).toBe(n)
        },
      ),
    )
  })

  it('refuses ciphertext lengths no payload has', () => {
    for (const bad of [0, 15, RECORD_SIZE + 16 + 15, RECORD_SIZE + 16 + 16]) {
      expect(() => plainSize(bad)).toThrow(/No payload encrypts/)
    }
    expect(() => encryptedSize(-1)).toThrow()
    expect(() => encryptedSize(1.5)).toThrow()
  })
})
