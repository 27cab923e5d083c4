import { afterEach, describe, expect, it, vi } from 'vitest'

import { formatBytes } from './format-bytes'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1000, '1,000 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [20_000, '20 KiB'],
    [1_234_567, '1.2 MiB'],
    [2_500_000_000, '2.3 GiB'],
  ])('formats %d as %s in binary units', (bytes, label) => {
    vi.stubGlobal('navigator', { language: 'en-US' })
    expect(formatBytes(bytes)).toBe(label)
  })

  it('writes the number in the page language', () => {
    vi.stubGlobal('navigator', { language: 'de-DE' })
    expect(formatBytes(1536)).toBe('1,5 KiB')
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d', (bytes) => {
    expect(() => formatBytes(bytes)).toThrow(RangeError)
  })
})
