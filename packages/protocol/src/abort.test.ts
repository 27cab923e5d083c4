import { describe, expect, it } from 'vitest'

import { isAbortError } from './abort.js'

describe('isAbortError', () => {
  it('knows the aborts of the browser, of Node and of a signal with a reason of its own', () => {
    expect(isAbortError(new DOMException('stop', 'AbortError'))).toBe(true)
    const controller = new AbortController()
    controller.abort()
    expect(isAbortError(controller.signal.reason)).toBe(true)
    expect(isAbortError(Object.assign(new Error('x'), { code: 'ABORT_ERR' }))).toBe(true)
    const own = new AbortController()
    const reason = new Error('stop now')
    own.abort(reason)
    expect(isAbortError(reason, own.signal)).toBe(true)
    expect(isAbortError(reason)).toBe(false)
  })

  it('takes a timeout or any other failure for a failure', () => {
    expect(isAbortError(new DOMException('late', 'TimeoutError'))).toBe(false)
    expect(isAbortError(new Error('broken'))).toBe(false)
    expect(isAbortError(null)).toBe(false)
    expect(isAbortError('AbortError')).toBe(false)
  })
})
