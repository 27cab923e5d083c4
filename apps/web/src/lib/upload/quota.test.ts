import { QUOTA_DISABLED, type QuotaResponse } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { allowanceOf, quotaMessage, quotaProblem } from './quota'
import { enabledQuota } from './quota-answers'

const NOW = Date.parse('2026-11-23T10:00:00Z')

const enabled = (remainingBytes: number, resetsAt = '2026-11-23T11:30:00Z'): QuotaResponse =>
  enabledQuota(remainingBytes, resetsAt)

describe('allowanceOf', () => {
  it('is null without a quota or before the answer', () => {
    expect(allowanceOf(null, NOW)).toBeNull()
    expect(allowanceOf(QUOTA_DISABLED, NOW)).toBeNull()
  })

  it('counts the seconds to the renewal, never below zero', () => {
    expect(allowanceOf(enabled(400), NOW)).toEqual({
      remainingBytes: 400,
      limitBytes: 1000,
      renewsInSec: 5400,
    })
    expect(allowanceOf(enabled(400, '2026-11-23T09:00:00Z'), NOW)?.renewsInSec).toBe(0)
  })
})

describe('quotaProblem', () => {
  const allowance = allowanceOf(enabled(400), NOW)

  it('lets an upload within what is left start', () => {
    expect(quotaProblem(allowance, 400)).toBeNull()
    expect(quotaProblem(allowance, 1)).toBeNull()
    expect(quotaProblem(null, 10 ** 12)).toBeNull()
  })

  it('says when an upload is larger than what is left, or nothing is left', () => {
    expect(quotaProblem(allowance, 401)).toBe('overQuota')
    expect(quotaProblem(allowanceOf(enabled(0), NOW), 1)).toBe('exhausted')
  })

  it('says nothing before a pick, or once the window has renewed', () => {
    expect(quotaProblem(allowanceOf(enabled(0), NOW), 0)).toBeNull()
    expect(quotaProblem(allowanceOf(enabled(0, '2026-11-23T09:00:00Z'), NOW), 1)).toBeNull()
  })
})

describe('quotaMessage', () => {
  it('names what is left and when it renews, or says nothing', () => {
    const allowance = allowanceOf(enabled(400), NOW)
    expect(quotaMessage(allowance, 400)).toBeNull()
    expect(quotaMessage(allowance, 401)).toBe(
      'This is larger than the 400\u00a0B left of your upload allowance on this server. It renews in 1 hour 30 minutes.',
    )
    expect(quotaMessage(allowanceOf(enabled(0), NOW), 5)).toBe(
      'Your upload allowance on this server is used up. It renews in 1 hour 30 minutes.',
    )
  })
})
