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
    [0, '0\u00a0B'],
    [1000, '1,000\u00a0B'],
    [1024, '1\u00a0KiB'],
    [1536, '1.5\u00a0KiB'],
    [20_000, '20\u00a0KiB'],
    [1_234_567, '1.2\u00a0MiB'],
    [2_500_000_000, '2.3\u00a0GiB'],
  ])('formats %d as %s in binary units', (bytes, label) => {
    expect(formatBytes(bytes)).toBe(label)
  })

  it.each([
    ['de', 1536, '1,5\u00a0KiB'],
    ['fr', 5e15, '4\u202f547\u00a0TiB'],
    ['ja', 1536, '1.5\u00a0KiB'],
    ['pl', 1_234_567, '1,2\u00a0MiB'],
  ])("writes the number in the page's language, %s", async (tag, bytes, label) => {
    expect(await inLocale(tag, () => formatBytes(bytes))).toBe(label)
  })

  it('keeps the number and its unit on one line', () => {
    expect(formatBytes(38 * 1024)).toBe('38\u00a0KiB')
    expect(formatBytes(38 * 1024)).not.toContain(' ')
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d', (bytes) => {
    expect(() => formatBytes(bytes)).toThrow(RangeError)
  })
})
