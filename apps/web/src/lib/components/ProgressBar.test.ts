// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it, vi } from 'vitest'

import ProgressBar from './ProgressBar.svelte'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

describe('ProgressBar', () => {
  it('shows bytes, speed, time left and transport from successive updates', async () => {
    let now = 0
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const { rerender } = render(ProgressBar, {
      label: 'Uploading',
      done: 0,
      total: 10_000_000,
      transport: 'websocket',
    })
    expect(screen.getByText(/estimating time left/)).toBeTruthy()

    now = 2000
    await rerender({
      label: 'Uploading',
      done: 4_000_000,
      total: 10_000_000,
      transport: 'websocket',
    })
    // 4 MB in 2 s is 2 MB/s; 6 MB are left, so 3 seconds.
    expect(screen.getByText('4 MB of 10 MB')).toBeTruthy()
    expect(screen.getByText('2 MB/s')).toBeTruthy()
    expect(screen.getByText('3 seconds left')).toBeTruthy()
    expect(screen.getByText('via WebSocket')).toBeTruthy()
    const bar = screen.getByRole('progressbar', { name: 'Uploading' }) as HTMLProgressElement
    expect(bar.value).toBe(4_000_000)
    expect(bar.max).toBe(10_000_000)
  })

  it('starts measuring again when the count goes back (a new transfer)', async () => {
    let now = 0
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const { rerender } = render(ProgressBar, { label: 'Up', done: 0, total: 100, transport: null })
    now = 1000
    await rerender({ label: 'Up', done: 90, total: 100, transport: null })
    now = 2000
    await rerender({ label: 'Up', done: 10, total: 100, transport: 'http' })
    expect(screen.getByText(/estimating time left/)).toBeTruthy()
    expect(screen.getByText('via HTTP')).toBeTruthy()
  })
})
