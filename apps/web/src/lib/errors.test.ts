/** The one-line messages pages show for the server's refusals. */
import { ApiError, ERROR_MESSAGES } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { errorMessage } from './errors'
import { formatRemaining } from './format-time'
import { t } from './i18n/t'

describe('errorMessage', () => {
  it('tells the upload quota apart from a file that is too large', () => {
    expect(errorMessage(new ApiError(413, ERROR_MESSAGES.quotaExceeded))).toBe(
      t('error.quotaExceeded'),
    )
    expect(errorMessage(new ApiError(413, ERROR_MESSAGES.fileTooLarge))).toBe(t('error.tooLarge'))
  })

  it('says when a used-up quota renews, and tells it apart from the rate limit', () => {
    const exhausted = new ApiError(429, ERROR_MESSAGES.quotaExhausted, { retryAfterSec: 5400 })
    expect(errorMessage(exhausted)).toBe(t('error.quotaExhausted', { time: formatRemaining(5400) }))
    expect(errorMessage(exhausted)).toContain(formatRemaining(5400))
    expect(errorMessage(new ApiError(429, ERROR_MESSAGES.quotaExhausted))).toBe(
      t('error.quotaExhaustedLater'),
    )
    expect(errorMessage(new ApiError(429, ERROR_MESSAGES.rateLimited, { retryAfterSec: 3 }))).toBe(
      t('error.rateLimited'),
    )
  })
})
