/**
 * Turns the client core's errors into what a page shows: which whole-page panel (404, 410,
 * broken link, lockout) or which one-line message.
 */
import { ERROR_MESSAGES, isApiError, isProtocolError, type ApiError } from '@fileshare/protocol'

import { formatRemaining } from './format-time'
import { t } from './i18n/t'

/** The whole-page explanations `ErrorPanel` can show. */
export type ErrorKind =
  'notFound' | 'gone' | 'removed' | 'badLink' | 'wrongKey' | 'locked' | 'network' | 'generic'

/**
 * Where an error happened: `create` on the pages that make something (upload, note, request),
 * where the creation guard's 401 means "sign in"; `use` everywhere else, where a 401 can only be a
 * token derived from the link's key that the server refused (spec: Authentication).
 */
export type ErrorContext = 'create' | 'use'

/** The server's 401 messages for a refused auth token (spec: Messages given by the interface). */
const AUTH_TOKEN_REFUSED: readonly string[] = [
  ERROR_MESSAGES.invalidOrMissingAuthToken,
  ERROR_MESSAGES.invalidAuthToken,
]
const OWNER_TOKEN_REFUSED: readonly string[] = [
  ERROR_MESSAGES.invalidOrMissingOwnerToken,
  ERROR_MESSAGES.invalidOwnerToken,
]

/** A 401 from the creation guard, as opposed to a refused token. */
function isLoginRequired(error: ApiError, context: ErrorContext): boolean {
  if (error.message === ERROR_MESSAGES.loginRequired) return context === 'create'
  if (AUTH_TOKEN_REFUSED.includes(error.message) || OWNER_TOKEN_REFUSED.includes(error.message)) {
    return false
  }
  if (error.message === ERROR_MESSAGES.invalidPassword) return false
  return context === 'create'
}

/**
 * The panel for a failure to open a link; `generic` for anything else. A link whose key does not
 * decrypt or whose derived token the server refuses was most likely copied incompletely: the
 * cipher cannot tell that from tampering, but it is the cause to name first.
 */
export function errorKindOf(error: unknown): ErrorKind {
  if (isProtocolError(error, 'BAD_LINK') || isProtocolError(error, 'UNSUPPORTED_VERSION')) {
    return 'badLink'
  }
  if (isProtocolError(error, 'DECRYPT_FAILED')) return 'wrongKey'
  if (isApiError(error, 401) && AUTH_TOKEN_REFUSED.includes(error.message)) return 'wrongKey'
  if (isProtocolError(error, 'NETWORK')) return 'network'
  if (isApiError(error, 404)) return 'notFound'
  if (isApiError(error, 410)) return error.removed ? 'removed' : 'gone'
  if (isApiError(error, 429) && error.retryAfterSec !== null) return 'locked'
  return 'generic'
}

/** One line explaining `error` to the user; `context` tells a sign-in prompt from a bad link. */
export function errorMessage(error: unknown, context: ErrorContext = 'use'): string {
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
      case 'SOURCE_CHANGED':
        return error.subject === undefined
          ? t('error.sourcesChanged')
          : t('error.sourceChanged', { name: error.subject })
      default:
        return t('error.generic', { message: error.message })
    }
  }
  if (isApiError(error)) {
    switch (error.status) {
      case 401:
        if (isLoginRequired(error, context)) return t('error.loginRequired')
        if (error.message === ERROR_MESSAGES.invalidPassword) return t('error.wrongPassword')
        if (OWNER_TOKEN_REFUSED.includes(error.message)) return t('error.ownerTokenRefused')
        return t('error.wrongKey.body')
      case 403:
        return t('error.disabled')
      case 404:
        return t('error.notFound.body')
      case 410:
        return goneMessage(error)
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

/** Why a link is gone, as far as the server's message says (spec: Messages given by the interface). */
export function goneMessage(error: ApiError): string {
  if (error.removed) return removedMessage(error.takedown)
  if (error.message === ERROR_MESSAGES.noteExpired) return t('error.gone.expired')
  if (error.message === ERROR_MESSAGES.viewLimitReached) return t('error.gone.usedUp')
  return t('error.gone.body')
}

/** What a link the operator took down shows, with the operator's words when given. */
export function removedMessage(takedown: string | null): string {
  const body = t('error.removed.body')
  return takedown ? `${body} ${t('error.removed.reason', { reason: takedown })}` : body
}

/** The one-line lockout message of a password field after a 429, with the wait when known. */
export function lockoutMessage(retryAfterSec: number | null | undefined): string {
  return retryAfterSec && retryAfterSec > 0
    ? t('error.locked.message', { time: formatRemaining(retryAfterSec) })
    : t('error.locked.messageLater')
}
