// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { holdPage } from './lib/leave-guard'
import { router, startRouter } from './router.svelte'

let stop: () => void
let link: HTMLAnchorElement

beforeEach(() => {
  history.replaceState(null, '', '/')
  router.sync()
  stop = startRouter()
  link = document.createElement('a')
  document.body.append(link)
})

afterEach(() => {
  stop()
  link.remove()
  vi.restoreAllMocks()
})

describe('in-app links', () => {
  it('move without a reload', () => {
    link.href = '/history'
    link.click()
    expect(location.pathname).toBe('/history')
    expect(router.path).toBe('/history')
  })

  it('ask before leaving a page whose transfer is under way, and stay when told to', () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false)
    const release = holdPage()
    link.href = '/history'
    link.click()
    expect(confirm).toHaveBeenCalledOnce()
    expect(location.pathname).toBe('/')
    // A link to the page itself leaves nothing and asks nothing.
    link.href = '/#top'
    link.click()
    expect(confirm).toHaveBeenCalledOnce()
    confirm.mockReturnValue(true)
    link.href = '/history'
    link.click()
    expect(location.pathname).toBe('/history')
    release()
  })

  it('ask on back to another page while held, and put the page back when told to stay', async () => {
    link.href = '/history'
    link.click()
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false)
    const release = holdPage()
    history.back()
    await vi.waitFor(() => expect(confirm).toHaveBeenCalledOnce())
    expect(location.pathname).toBe('/history')
    expect(router.path).toBe('/history')
    confirm.mockReturnValue(true)
    history.back()
    await vi.waitFor(() => expect(location.pathname).toBe('/'))
    await vi.waitFor(() => expect(router.path).toBe('/'))
    expect(confirm).toHaveBeenCalledTimes(2)
    release()
  })
})
