/** The options and lines of resuming: `--retries`, and what a resume prints. */
import { describe, expect, it } from 'vitest'

import { UsageError } from './errors.js'
import { chooseRetries, resumedLine } from './resuming.js'

describe('chooseRetries', () => {
  it('takes a duration, 5 minutes by default, 0 for never', () => {
    expect(chooseRetries(undefined)).toBe(300_000)
    expect(chooseRetries('30s')).toBe(30_000)
    expect(chooseRetries('10m')).toBe(600_000)
    expect(chooseRetries('0')).toBe(0)
  })

  it('refuses what is not a duration', () => {
    expect(() => chooseRetries('soon')).toThrow(UsageError)
    expect(() => chooseRetries('soon')).toThrow('--retries soon is not a duration')
  })
})

describe('resumedLine', () => {
  it('says where the upload resumed and how often it had to', () => {
    expect(resumedLine({ offset: 412 * 1024 * 1024, attempt: 2 })).toBe(
      'Connection lost; resumed at 412 MiB (attempt 2)',
    )
  })
})
