/** The one-line messages pages show for the server's refusals. */
import { ApiError, decryptFailed, ERROR_MESSAGES } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { errorKindOf, errorMessage, lockoutMessage } from './errors'
import { formatRemaining } from './format-time'
import { showLocale } from './i18n/locale.svelte'
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

describe('a 401', () => {
  it('from a refused auth token says the link is wrong, never "sign in"', () => {
    for (const message of [
      ERROR_MESSAGES.invalidAuthToken,
      ERROR_MESSAGES.invalidOrMissingAuthToken,
    ]) {
      const error = new ApiError(401, message)
      expect(errorMessage(error)).toBe(t('error.wrongKey.body'))
      expect(errorMessage(error, 'create')).toBe(t('error.wrongKey.body'))
      expect(errorKindOf(error)).toBe('wrongKey')
    }
  })

  it('from the creation guard says "sign in" only on a creating page', () => {
    const guard = new ApiError(401, ERROR_MESSAGES.loginRequired)
    expect(errorMessage(guard, 'create')).toBe(t('error.loginRequired'))
    expect(errorMessage(guard)).not.toBe(t('error.loginRequired'))
    // A proxy's bare 401 on a reading page is no login prompt either.
    expect(errorMessage(new ApiError(401, 'HTTP 401'))).toBe(t('error.wrongKey.body'))
    expect(errorMessage(new ApiError(401, 'HTTP 401'), 'create')).toBe(t('error.loginRequired'))
  })

  it('from a refused owner token or password says which', () => {
    expect(errorMessage(new ApiError(401, ERROR_MESSAGES.invalidOwnerToken))).toBe(
      t('error.ownerTokenRefused'),
    )
    expect(errorMessage(new ApiError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken))).toBe(
      t('error.ownerTokenRefused'),
    )
    expect(errorMessage(new ApiError(401, ERROR_MESSAGES.invalidPassword))).toBe(
      t('error.wrongPassword'),
    )
  })
})

describe('a key that does not decrypt', () => {
  it('is shown as a link whose key does not fit', () => {
    expect(errorKindOf(decryptFailed())).toBe('wrongKey')
  })
})

describe('a 410', () => {
  it('says whether a note expired or was used up', () => {
    expect(errorMessage(new ApiError(410, ERROR_MESSAGES.noteExpired))).toBe(
      'This link has expired.',
    )
    expect(errorMessage(new ApiError(410, ERROR_MESSAGES.viewLimitReached))).toBe(
      t('error.gone.usedUp'),
    )
    expect(errorMessage(new ApiError(410, ERROR_MESSAGES.uploadUnavailable))).toBe(
      t('error.gone.body'),
    )
  })

  it('from a takedown says the operator removed it, never that it expired', () => {
    const removed = new ApiError(410, ERROR_MESSAGES.removedByOperator, {
      removed: true,
      takedown: 'Copyright complaint',
    })
    expect(errorKindOf(removed)).toBe('removed')
    expect(errorMessage(removed)).toBe(
      'The operator of this service removed what this link pointed to. ' +
        'The operator’s reason: Copyright complaint',
    )
    const bare = new ApiError(410, ERROR_MESSAGES.removedByOperator, { removed: true })
    expect(errorMessage(bare)).toBe(t('error.removed.body'))
    expect(errorKindOf(new ApiError(410, ERROR_MESSAGES.noteExpired))).toBe('gone')
  })
})

describe('lockoutMessage', () => {
  it('is one sentence pair with the wait, or without it when the server gave none', () => {
    expect(lockoutMessage(90)).toBe(
      `Too many wrong passwords. Try again in ${formatRemaining(90)}.`,
    )
    expect(lockoutMessage(null)).toBe('Too many wrong passwords. Try again later.')
  })

  it('leaves the sentence break to the language', async () => {
    await showLocale('ja')
    try {
      expect(lockoutMessage(null)).toBe(
        'パスワードの誤りが多すぎます。しばらくしてからもう一度お試しください。',
      )
    } finally {
      await showLocale('en')
    }
  })
})
