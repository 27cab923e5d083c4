import { describe, expect, it } from 'vitest'

import { formatBytes } from './format-bytes'
import { showLocale } from './i18n/locale.svelte'

async function inLocale<T>(tag: string, run: () => T): Promise<T> {
  await showLocale(tag)
  try {
    return run()
  } finally {
    await showLocale('en')
  }
}

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
    expect(formatBytes(bytes)).toBe(label)
  })

  it.each([
    ['de', 1536, '1,5 KiB'],
    ['fr', 5e15, '4\u202f547 TiB'],
    ['ja', 1536, '1.5 KiB'],
    ['pl', 1_234_567, '1,2 MiB'],
  ])("writes the number in the page's language, %s", async (tag, bytes, label) => {
    expect(await inLocale(tag, () => formatBytes(bytes))).toBe(label)
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d', (bytes) => {
    expect(() => formatBytes(bytes)).toThrow(RangeError)
  })
})
