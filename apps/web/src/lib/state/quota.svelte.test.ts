// @vitest-environment jsdom
import type { QuotaResponse } from '@fileshare/protocol'
import { flushSync } from 'svelte'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { allowanceOf } from '../upload/quota'
import { enabledQuota } from '../upload/quota-answers'
import { TICK_MS, quota, quotaNow } from './quota.svelte'

const api = vi.hoisted(() => ({ quota: vi.fn<() => Promise<QuotaResponse>>() }))
vi.mock('../api', () => ({ pageApi: () => api }))

const T0 = Date.parse('2026-03-01T12:00:00.000Z')

const answer = (resetsAt: number, remainingBytes: number): QuotaResponse =>
  enabledQuota(remainingBytes, new Date(resetsAt).toISOString())

/** Watches the allowance as a page does; returns what it saw and a way to leave the page. */
function showAllowance(): { seen: (number | undefined)[]; leave: () => void } {
  const seen: (number | undefined)[] = []
  const leave = $effect.root(() => {
    const allowance = $derived(allowanceOf(quota.value, quotaNow()))
    $effect(() => {
      seen.push(allowance?.renewsInSec)
    })
  })
  flushSync()
  return { seen, leave }
}

beforeEach(() => {
  vi.useFakeTimers({ now: T0 })
  api.quota.mockReset()
})

afterEach(() => {
  vi.useRealTimers()
})

describe('the allowance a page shows', () => {
  it('counts its renewal down while the page is open', () => {
    quota.value = answer(T0 + 120_000, 10)
    const page = showAllowance()
    vi.advanceTimersByTime(TICK_MS)
    flushSync()
    vi.advanceTimersByTime(TICK_MS)
    flushSync()
    expect(page.seen).toEqual([120, 105, 90])
    expect(api.quota).not.toHaveBeenCalled()
    page.leave()
  })

  it('is read again once its window has ended, and shows the renewed one', async () => {
    quota.value = answer(T0 + 20_000, 0)
    api.quota.mockResolvedValue(answer(T0 + 86_420_000, 1000))
    const page = showAllowance()
    vi.advanceTimersByTime(TICK_MS)
    expect(api.quota).not.toHaveBeenCalled()
    vi.advanceTimersByTime(TICK_MS)
    expect(api.quota).toHaveBeenCalledTimes(1)
    await vi.waitFor(() => expect(quota.value).toMatchObject({ remainingBytes: 1000 }))
    flushSync()
    expect(page.seen.at(-1)).toBe(86_390)
    page.leave()
  })

  it('stops its clock when no page shows it', () => {
    quota.value = answer(T0 + 20_000, 0)
    const page = showAllowance()
    expect(vi.getTimerCount()).toBe(1)
    page.leave()
    flushSync()
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(10 * TICK_MS)
    expect(api.quota).not.toHaveBeenCalled()
  })
})
