/**
 * The caller's upload allowance (`GET /api/quota`) as the upload pages use it: what is left,
 * when it renews, and whether a picked upload fits. Advisory only: the server checks the quota
 * at init whatever the page thinks, so a stale or missing answer never lets an upload through.
 */
import type { QuotaResponse } from '@fileshare/protocol'

import { formatBytes } from '../format-bytes'
import { formatRemaining } from '../format-time'
import { t } from '../i18n/t'

export interface Allowance {
  remainingBytes: number
  limitBytes: number
  /** Seconds until the window ends and the allowance is whole again (0 once it has). */
  renewsInSec: number
}

export type QuotaProblem = 'exhausted' | 'overQuota' | null

/** The allowance of an enabled quota at `now` (ms since the epoch); null without a quota. */
export function allowanceOf(quota: QuotaResponse | null, now: number): Allowance | null {
  if (!quota?.enabled) return null
  const renewsInSec = Math.max(0, Math.ceil((Date.parse(quota.resetsAt) - now) / 1000))
  return { remainingBytes: quota.remainingBytes, limitBytes: quota.limitBytes, renewsInSec }
}

/**
 * Why an upload of `encryptedBytes` (the size the server is told) cannot start now, or null. An
 * allowance whose window has ended says nothing: it was read before the renewal.
 */
export function quotaProblem(allowance: Allowance | null, encryptedBytes: number): QuotaProblem {
  if (!allowance || allowance.renewsInSec === 0 || encryptedBytes === 0) return null
  if (allowance.remainingBytes <= 0) return 'exhausted'
  return encryptedBytes > allowance.remainingBytes ? 'overQuota' : null
}

/** The sentence that says why an upload of `encryptedBytes` cannot start now, or null. */
export function quotaMessage(allowance: Allowance | null, encryptedBytes: number): string | null {
  const problem = quotaProblem(allowance, encryptedBytes)
  if (!problem || !allowance) return null
  const time = formatRemaining(allowance.renewsInSec)
  return problem === 'exhausted'
    ? t('error.quotaExhausted', { time })
    : t('quota.over', { left: formatBytes(allowance.remainingBytes), time })
}
