import { describe, expect, it } from 'vitest'

import { formatBytes } from './format-bytes'
import { showLocale } from './i18n/locale.svelte'

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1, '1 B'],
    [999, '999 B'],
    [1000, '1 KB'],
    [1500, '1.5 KB'],
    [1_234_567, '1.2 MB'],
    [2_500_000_000, '2.5 GB'],
    [5e15, '5 PB'],
    [5e18, '5,000 PB'],
  ])('formats %d as %s', (bytes, label) => {
    expect(formatBytes(bytes)).toBe(label)
  })

  it('moves to the next unit when rounding would print 1000', () => {
    expect(formatBytes(999_960)).toBe('1 MB')
    expect(formatBytes(999_949)).toBe('999.9 KB')
  })

  it.each([
    ['de', 1_234_567, '1,2 MB'],
    ['fr', 5e18, '5\u202f000 PB'],
    ['ja', 1500, '1.5 KB'],
    ['pl', 999_949, '999,9 KB'],
  ])('writes the number the %s way', (locale, bytes, label) => {
    expect(formatBytes(bytes, { locale })).toBe(label)
  })

  it("follows the page's language when none is given", async () => {
    await showLocale('de')
    try {
      expect(formatBytes(2_500_000_000)).toBe('2,5 GB')
    } finally {
      await showLocale('en')
    }
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d', (bytes) => {
    expect(() => formatBytes(bytes)).toThrow(RangeError)
  })
})
