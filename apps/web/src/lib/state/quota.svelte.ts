/**
 * The caller's upload allowance from `GET /api/quota`, read when an upload page opens, when files
 * are picked and after each upload. A failed read leaves the last answer: the allowance is shown
 * for the user's sake, and the server enforces the quota either way.
 *
 * While a page shows the allowance, `quotaNow()` moves on every TICK_MS, so "renews in" counts
 * down, and once the window has ended the allowance is read again (at most once a tick), so a
 * page left open shows the renewed allowance instead of an exhausted one.
 */
import type { QuotaResponse } from '@fileshare/protocol'
import { createSubscriber } from 'svelte/reactivity'

import { pageApi } from '../api'

export const quota: { value: QuotaResponse | null } = $state({ value: null })

/** How often a shown allowance is brought up to date. */
export const TICK_MS = 15_000

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

let now = Date.now()

const ticking = createSubscriber((update) => {
  now = Date.now()
  const timer = setInterval(() => {
    now = Date.now()
    const current = quota.value
    if (current?.enabled && Date.parse(current.resetsAt) <= now) void refreshQuota()
    update()
  }, TICK_MS)
  return () => clearInterval(timer)
})

/** The time in ms, for what depends on it in the allowance; moves on while something reads it. */
export function quotaNow(): number {
  ticking()
  return now
}
