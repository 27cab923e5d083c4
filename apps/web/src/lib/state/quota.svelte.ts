/**
 * The caller's upload allowance from `GET /api/quota`, read when an upload page opens, when files
 * are picked and after each upload. A failed read leaves the last answer: the allowance is shown
 * for the user's sake, and the server enforces the quota either way.
 */
import type { QuotaResponse } from '@fileshare/protocol'

import { pageApi } from '../api'

export const quota: { value: QuotaResponse | null } = $state({ value: null })

let pending: Promise<void> | undefined

export function refreshQuota(): Promise<void> {
  pending ??= pageApi()
    .quota()
    .then(
      (value) => {
        quota.value = value
      },
      () => undefined,
    )
    .finally(() => {
      pending = undefined
    })
  return pending
}
