/**
 * Turns the client core's errors into what a page shows: which whole-page panel (404, 410,
 * broken link, lockout) or which one-line message.
 */
import { ERROR_MESSAGES, isApiError, isProtocolError } from '@fileshare/protocol'

import { formatRemaining } from './format-time'
import { t } from './i18n/t'

/** The whole-page explanations `ErrorPanel` can show. */
export type ErrorKind = 'notFound' | 'gone' | 'badLink' | 'locked' | 'network' | 'generic'

/** The panel for a failure to open a link; `generic` for anything else. */
export function errorKindOf(error: unknown): ErrorKind {
  if (isProtocolError(error, 'BAD_LINK') || isProtocolError(error, 'UNSUPPORTED_VERSION')) {
    return 'badLink'
  }
  if (isProtocolError(error, 'NETWORK')) return 'network'
  if (isApiError(error, 404)) return 'notFound'
  if (isApiError(error, 410)) return 'gone'
  if (isApiError(error, 429) && error.retryAfterSec !== null) return 'locked'
  return 'generic'
}

/** True when the user cancelled (an AbortSignal fired). */
export function isAbort(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'AbortError'
  )
}

/** One line explaining `error` to the user. */
export function errorMessage(error: unknown): string {
  if (isProtocolError(error)) {
    switch (error.code) {
      case 'WRONG_PASSWORD':
        return t('error.wrongPassword')
      case 'NETWORK':
        return t('error.network')
      case 'DECRYPT_FAILED':
      case 'TRUNCATED':
        return t('error.integrity')
      case 'BAD_LINK':
      case 'UNSUPPORTED_VERSION':
        return t('error.badLink.body')
      default:
        return t('error.generic', { message: error.message })
    }
  }
  if (isApiError(error)) {
    switch (error.status) {
      case 401:
        return t('error.loginRequired')
      case 403:
        return t('error.disabled')
      case 404:
        return t('error.notFound.body')
      case 410:
        return t('error.gone.body')
      case 413:
        // The upload quota refuses with 413 too; the server's message tells the two apart.
        if (error.message === ERROR_MESSAGES.quotaExceeded) return t('error.quotaExceeded')
        return t('error.tooLarge')
      case 429:
        if (error.message === ERROR_MESSAGES.quotaExhausted) {
          return error.retryAfterSec !== null
            ? t('error.quotaExhausted', { time: formatRemaining(error.retryAfterSec) })
            : t('error.quotaExhaustedLater')
        }
        return t('error.rateLimited')
      default:
        return t('error.generic', { message: error.message })
    }
  }
  const message = error instanceof Error ? error.message : String(error)
  return t('error.generic', { message })
}
