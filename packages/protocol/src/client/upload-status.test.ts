import { describe, expect, it } from 'vitest'

import { ProtocolError } from '../errors.js'
import { ApiError } from './api-error.js'
import { isConnectionLoss, resumeDelay } from './upload-status.js'

describe('resumeDelay', () => {
  it('waits at random up to a bound doubling from 0.1 s to 15 s', () => {
    // The first attempt after a drop follows promptly: a drop must cost little on a fast link.
    expect([0, 1, 2, 5, 6, 7, 8, 40].map((n) => resumeDelay(n, () => 1))).toEqual([
      100, 200, 400, 3200, 6400, 12_800, 15_000, 15_000,
    ])
    expect(resumeDelay(3, () => 0)).toBe(0)
    expect(resumeDelay(3, () => 0.5)).toBe(400)
  })
})

describe('isConnectionLoss', () => {
  it('resumes after a lost connection or a server away, never after a refusal or an abort', () => {
    expect(isConnectionLoss(new ProtocolError('NETWORK', 'gone'))).toBe(true)
    expect(isConnectionLoss(new ApiError(502, 'Bad gateway'))).toBe(true)
    expect(isConnectionLoss(new ApiError(409, 'Upload already in progress'))).toBe(true)
    expect(isConnectionLoss(new ApiError(401, 'Invalid or missing owner token'))).toBe(false)
    expect(isConnectionLoss(new ApiError(413, 'File too large'))).toBe(false)
    expect(isConnectionLoss(new ProtocolError('BAD_INPUT', 'changed'))).toBe(false)
    const aborted = AbortSignal.abort()
    expect(isConnectionLoss(new ProtocolError('NETWORK', 'gone'), aborted)).toBe(false)
  })
})
