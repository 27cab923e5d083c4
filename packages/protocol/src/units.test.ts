import { describe, expect, it } from 'vitest'

import { formatBytes, parseBytes } from './units.js'

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1, '1 B'],
    [1023, '1,023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [20 * 1024, '20 KiB'],
    [19.5 * 1024, '20 KiB'],
    [9.96 * 1024, '10 KiB'],
    [9.94 * 1024, '9.9 KiB'],
    [1024 ** 2 - 1, '1 MiB'],
    [1024 ** 2, '1 MiB'],
    [1.25 * 1024 ** 3, '1.3 GiB'],
    [10 * 1024 ** 3, '10 GiB'],
    [3 * 1024 ** 4, '3 TiB'],
    [2048 * 1024 ** 4, '2,048 TiB'],
  ])('%d bytes read %s', (bytes, text) => {
    expect(formatBytes(bytes, { locale: 'en' })).toBe(text)
  })

  it('writes the number in the given language', () => {
    expect(formatBytes(1536, { locale: 'de' })).toBe('1,5 KiB')
    expect(formatBytes(1023, { locale: 'de' })).toBe('1.023 B')
  })

  it('refuses what is not a byte count', () => {
    expect(() => formatBytes(-1)).toThrow(RangeError)
    expect(() => formatBytes(Number.NaN)).toThrow(RangeError)
    expect(() => formatBytes(Number.POSITIVE_INFINITY)).toThrow(RangeError)
  })
})

describe('parseBytes', () => {
  it.each([
    ['1048576', 1_048_576],
    ['0', 0],
    ['12 B', 12],
    ['512K', 512 * 1024],
    ['512KB', 512 * 1024],
    ['512kib', 512 * 1024],
    ['100MB', 100 * 1024 ** 2],
    ['100 MiB', 100 * 1024 ** 2],
    ['1.5GiB', 1.5 * 1024 ** 3],
    ['2gb', 2 * 1024 ** 3],
    ['1 TB', 1024 ** 4],
    ['0.1KB', 102],
    ['  7 mb ', 7 * 1024 ** 2],
  ])('reads %s as %d bytes (powers of 1024)', (text, bytes) => {
    expect(parseBytes(text)).toBe(bytes)
  })

  it.each([
    '',
    'lots',
    '10XB',
    '-1',
    '1e6',
    '1,5MB',
    '1.MB',
    '.5MB',
    'MB',
    '10 MB extra',
    '99999999999TB',
  ])('refuses %j with the accepted forms', (text) => {
    expect(() => parseBytes(text)).toThrow(/is not a size: use bytes or a number with KB/)
  })
})
