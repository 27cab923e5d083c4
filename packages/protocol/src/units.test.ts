import { describe, expect, it } from 'vitest'

import { formatBytes, formatDuration, parseBytes, parseDuration, splitDuration } from './units.js'

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

describe('parseDuration', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    ['5m', 300],
    [' 1H ', 3600],
    ['12h', 43_200],
    ['7d', 604_800],
    ['2w', 1_209_600],
    ['0', 0],
  ])('%j is %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds)
  })

  it.each(['1.5h', 'soon', '', '-5m', '5 minutes', '1y', '99999999999999999w'])(
    'refuses %j, naming the accepted forms',
    (text) => {
      expect(() => parseDuration(text)).toThrow(/is not a duration: use seconds or a whole number/)
    },
  )
})

describe('splitDuration and formatDuration', () => {
  it('give the largest exact unit by default', () => {
    expect([0, 61, 300, 3600, 5400, 86_400, 604_800].map((s) => formatDuration(s))).toEqual([
      '0s',
      '61s',
      '5m',
      '1h',
      '90m',
      '1d',
      '1w',
    ])
    expect(splitDuration(604_800, { units: ['day', 'hour', 'minute', 'second'] })).toEqual([
      { unit: 'day', count: 7 },
    ])
    expect(splitDuration(89.6)).toEqual([{ unit: 'second', count: 90 }])
  })

  it('give the two largest units of a time left, rounded up', () => {
    const remaining = { style: 'remaining', units: ['hour', 'minute', 'second'] } as const
    expect(
      [0, 0.2, 42, 58.5, 60, 185, 3599, 3600, 7620, 90_000].map((s) =>
        formatDuration(s, remaining),
      ),
    ).toEqual([
      '0s',
      '1s',
      '42s',
      '59s',
      '1m 00s',
      '3m 05s',
      '59m 59s',
      '1h 00m',
      '2h 07m',
      '25h 00m',
    ])
    expect(splitDuration(90_061, { style: 'remaining' })).toEqual([
      { unit: 'day', count: 1 },
      { unit: 'hour', count: 1 },
    ])
  })

  it('refuses what is not a duration', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => splitDuration(bad)).toThrow(RangeError)
    }
  })
})
