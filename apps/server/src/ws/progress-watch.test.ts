/** The progress floor of request upload sockets on a fake clock (spec: Upload slot inside a request). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { ProgressWatch } from './progress-watch.js'

const WINDOW = 1000
const MIN = 100

function watch(declaredSize: number) {
  const onStall = vi.fn()
  const progress = new ProgressWatch({
    rule: { windowMs: WINDOW, minBytes: MIN },
    declaredSize,
    onStall,
    now: () => Date.now(),
  })
  return { progress, onStall }
}

describe('ProgressWatch', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('stalls a socket that delivers less than minBytes in the first window', () => {
    const { progress, onStall } = watch(1000)
    progress.received(MIN - 1)
    vi.advanceTimersByTime(WINDOW - 1)
    expect(onStall).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(onStall).toHaveBeenCalledOnce()
  })

  it('keeps a socket that delivers minBytes in every window, however late in it', () => {
    const { progress, onStall } = watch(1000)
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(WINDOW - 10)
      progress.received(MIN)
    }
    vi.advanceTimersByTime(WINDOW - 10)
    expect(onStall).not.toHaveBeenCalled()
  })

  it('measures sliding windows: a burst early in one window does not cover the next one', () => {
    const { progress, onStall } = watch(1000)
    progress.received(MIN)
    vi.advanceTimersByTime(WINDOW / 2)
    progress.received(MIN / 2)
    // Fixed windows from the start would allow until 2 * WINDOW; the window after the first
    // burst ends at WINDOW.
    vi.advanceTimersByTime(WINDOW / 2 + 1)
    expect(onStall).toHaveBeenCalledOnce()
  })

  it('asks only for the rest, finalize included, when less than minBytes is left', () => {
    const { progress, onStall } = watch(250)
    progress.received(200)
    vi.advanceTimersByTime(WINDOW - 2)
    progress.received(50)
    vi.advanceTimersByTime(1)
    // The finalize frame: the connection stops the watch when it arrives.
    progress.stop()
    vi.advanceTimersByTime(10 * WINDOW)
    expect(onStall).not.toHaveBeenCalled()
  })

  it('stalls a socket that delivers less than the rest when less than minBytes is left', () => {
    const { progress, onStall } = watch(250)
    progress.received(200)
    vi.advanceTimersByTime(WINDOW - 2)
    progress.received(49)
    vi.advanceTimersByTime(2)
    expect(onStall).toHaveBeenCalledOnce()
  })

  it('stalls a socket that sent every byte but no finalize within a window', () => {
    const { progress, onStall } = watch(MIN)
    progress.received(MIN)
    vi.advanceTimersByTime(WINDOW)
    expect(onStall).toHaveBeenCalledOnce()
  })

  it('does not count time the server kept the socket paused', () => {
    const { progress, onStall } = watch(1000)
    vi.advanceTimersByTime(WINDOW / 2)
    progress.pause()
    vi.advanceTimersByTime(5 * WINDOW)
    progress.resume()
    vi.advanceTimersByTime(WINDOW / 2 - 1)
    expect(onStall).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(onStall).toHaveBeenCalledOnce()
  })

  it('never stalls after stop', () => {
    const { progress, onStall } = watch(1000)
    progress.stop()
    vi.advanceTimersByTime(10 * WINDOW)
    progress.received(1)
    vi.advanceTimersByTime(10 * WINDOW)
    expect(onStall).not.toHaveBeenCalled()
  })

  it('holds a bounded number of checkpoints however many frames arrive', () => {
    const { progress, onStall } = watch(10_000_000)
    for (let i = 0; i < 10_000; i++) {
      progress.received(1)
      vi.advanceTimersByTime(WINDOW / 10_000)
    }
    expect(onStall).not.toHaveBeenCalled()
    const held = (progress as unknown as { checkpoints: unknown[] }).checkpoints.length
    expect(held).toBeLessThanOrEqual(65)
  })
})
