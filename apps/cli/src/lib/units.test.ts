/** Durations, sizes and dates as users type and read them. */
import { describe, expect, it } from 'vitest'

import {
  formatBytes,
  formatDuration,
  formatRelative,
  formatRemaining,
  parseDuration,
} from './units.js'

describe('units', () => {
  it('parses durations with and without units', () => {
    expect(parseDuration('90')).toBe(90)
    expect(parseDuration('5m')).toBe(300)
    expect(parseDuration('1H')).toBe(3600)
    expect(parseDuration('7d')).toBe(604_800)
    expect(parseDuration('2w')).toBe(1_209_600)
    expect(parseDuration('1.5h')).toBeNull()
    expect(parseDuration('soon')).toBeNull()
  })

  it('prints the time left of a transfer, and a dash while there is no rate to tell', () => {
    expect([42, 185, 7620].map(formatRemaining)).toEqual(['42s', '3m 05s', '2h 07m'])
    expect([Number.NaN, Infinity, -1].map(formatRemaining)).toEqual(['–', '–', '–'])
  })

  it('prints durations in the largest exact unit, a week in days as the help writes it', () => {
    expect([300, 3600, 86_400, 604_800, 5400, 61, 2_592_000].map(formatDuration)).toEqual([
      '5m',
      '1h',
      '1d',
      '7d',
      '90m',
      '61s',
      '30d',
    ])
  })

  it('prints sizes and distances in time', () => {
    expect(formatBytes(12)).toBe('12 B')
    expect(formatBytes(1536)).toBe('1.5 KiB')
    expect(formatBytes(200 * 1024 ** 2)).toBe('200 MiB')
    const now = new Date('2025-01-01T00:00:00Z')
    expect(formatRelative(new Date('2025-01-01T23:59:00Z'), now)).toBe('in 1 day')
    expect(formatRelative(new Date('2025-01-01T05:00:00Z'), now)).toBe('in 5 hours')
    expect(formatRelative(new Date('2024-12-31T23:58:00Z'), now)).toBe('2 minutes ago')
  })
})
