import { afterEach, describe, expect, it, vi } from 'vitest'

import {
  CHARACTER_CLASSES,
  generatePassword,
  MAX_PASSWORD_LENGTH,
  randomIndex,
} from './password-generator'

afterEach(() => vi.restoreAllMocks())

describe('randomIndex', () => {
  it('rejects words in the biased tail instead of folding them with modulo', () => {
    // For n = 3 the accepted range ends at 2^32 - 1; the first draw is the rejected tail value.
    const draws = [2 ** 32 - 1, 7]
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(
      <T extends ArrayBufferView | null>(array: T): T => {
        ;(array as unknown as Uint32Array)[0] = draws.shift()!
        return array
      },
    )
    expect(randomIndex(3)).toBe(7 % 3)
    expect(draws).toHaveLength(0)
  })

  it('covers the whole range roughly evenly', () => {
    const counts = new Array<number>(6).fill(0)
    for (let i = 0; i < 6000; i++) counts[randomIndex(6)]!++
    for (const c of counts) expect(c).toBeGreaterThan(800)
  })

  it('refuses an empty range', () => {
    expect(() => randomIndex(0)).toThrow(RangeError)
  })
})

describe('generatePassword', () => {
  it('has the asked length and only characters of the chosen classes', () => {
    const pw = generatePassword({ length: 33, classes: ['lower', 'digits'] })
    expect(pw).toHaveLength(33)
    expect(pw).toMatch(/^[a-z0-9]+$/)
  })

  it('holds at least one character of every chosen class', () => {
    for (let i = 0; i < 200; i++) {
      const pw = generatePassword({ length: 4, classes: ['lower', 'upper', 'digits', 'symbols'] })
      for (const chars of Object.values(CHARACTER_CLASSES)) {
        expect([...pw].some((c) => chars.includes(c))).toBe(true)
      }
    }
  })

  it('differs between calls', () => {
    expect(generatePassword()).not.toBe(generatePassword())
  })

  it('refuses no classes and lengths out of range', () => {
    expect(() => generatePassword({ length: 20, classes: [] })).toThrow(/class/)
    expect(() => generatePassword({ length: 3, classes: ['lower'] })).toThrow(/Length/)
    expect(() => generatePassword({ length: MAX_PASSWORD_LENGTH + 1, classes: ['lower'] })).toThrow(
      /Length/,
    )
  })
})
