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
})
