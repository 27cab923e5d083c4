// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'

import { holdPage, holdWhile, leaveAllowed } from './leave-guard'

/** Whether the browser would ask before leaving: a `beforeunload` the page cancels. */
function asksBeforeUnload(): boolean {
  const event = new Event('beforeunload', { cancelable: true })
  window.dispatchEvent(event)
  return event.defaultPrevented
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('leave guard', () => {
  it('asks before unloading while work is held, and not after', () => {
    expect(asksBeforeUnload()).toBe(false)
    const first = holdPage()
    const second = holdPage()
    expect(asksBeforeUnload()).toBe(true)
    first()
    // Releasing twice does not let the other hold go.
    first()
    expect(asksBeforeUnload()).toBe(true)
    second()
    expect(asksBeforeUnload()).toBe(false)
  })

  it('holds from an effect only while busy', () => {
    expect(holdWhile(false)).toBeUndefined()
    const release = holdWhile(true)
    expect(asksBeforeUnload()).toBe(true)
    release?.()
    expect(asksBeforeUnload()).toBe(false)
  })

  it('lets in-app moves go without asking when nothing is held, and asks otherwise', () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false)
    expect(leaveAllowed('Leave?')).toBe(true)
    expect(confirm).not.toHaveBeenCalled()
    const release = holdPage()
    expect(leaveAllowed('Leave?')).toBe(false)
    confirm.mockReturnValue(true)
    expect(leaveAllowed('Leave?')).toBe(true)
    expect(confirm).toHaveBeenCalledWith('Leave?')
    release()
  })
})
