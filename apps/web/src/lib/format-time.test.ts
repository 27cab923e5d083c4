import { describe, expect, it } from 'vitest'

import { formatDate, formatDuration, formatRelative, formatRemaining } from './format-time'

describe('formatDuration', () => {
  it.each([
    [300, '5 minutes'],
    [3600, '1 hour'],
    [5400, '90 minutes'],
    [86_400, '1 day'],
    [604_800, '7 days'],
    [45, '45 seconds'],
  ])('labels %d seconds as %s', (seconds, label) => {
    expect(formatDuration(seconds, 'en')).toBe(label)
  })

  it('refuses negative and infinite durations', () => {
    expect(() => formatDuration(-1, 'en')).toThrow(RangeError)
    expect(() => formatDuration(Infinity, 'en')).toThrow(RangeError)
  })
})

describe('formatRemaining', () => {
  it.each([
    [0.2, '1 second'],
    [45, '45 seconds'],
    [60, '1 minute'],
    [125, '2 minutes 5 seconds'],
    [3 * 3600 + 7 * 60 + 9, '3 hours 7 minutes'],
    [90_000, '1 day 1 hour'],
  ])('shows %d seconds as %s', (seconds, label) => {
    expect(formatRemaining(seconds, 'en')).toBe(label)
  })
})

describe('dates', () => {
  it('formats an ISO timestamp in the given language', () => {
    expect(formatDate('2026-03-12T14:05:00.000Z', 'en')).toMatch(/2026/)
    expect(() => formatDate('not a date', 'en')).toThrow(RangeError)
  })

  it('says how far away a moment is', () => {
    const now = Date.parse('2026-01-01T00:00:00.000Z')
    expect(formatRelative('2026-01-01T03:00:00.000Z', now, 'en')).toBe('in 3 hours')
    expect(formatRelative('2025-12-30T00:00:00.000Z', now, 'en')).toBe('2 days ago')
  })
})

describe('formatRemaining of nothing left and of no duration', () => {
  it('reads at least one second, and refuses what is not a duration', () => {
    expect(formatRemaining(0, 'en')).toBe('1 second')
    expect(() => formatRemaining(-1, 'en')).toThrow(RangeError)
    expect(() => formatRemaining(Number.NaN, 'en')).toThrow(RangeError)
  })
})
