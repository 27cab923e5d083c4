// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it, vi } from 'vitest'

import ProgressBar from './ProgressBar.svelte'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

const MIB = 1024 ** 2

describe('ProgressBar', () => {
  it('says Preparing until the total is known, with no sizes or time left', () => {
    render(ProgressBar, { label: 'Encrypting…', done: 0, total: 0, transport: null })
    expect(screen.getByText('Preparing…')).toBeTruthy()
    expect(screen.queryByText(/0 B of 0 B/)).toBeNull()
    expect(screen.queryByText(/left/)).toBeNull()
    const bar = screen.getByRole('progressbar', { name: 'Encrypting…' }) as HTMLProgressElement
    expect(bar.hasAttribute('value')).toBe(false)
  })

  it('shows bytes, speed, time left and transport from successive updates', async () => {
    let now = 0
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const { rerender } = render(ProgressBar, {
      label: 'Uploading',
      done: 0,
      total: 10 * MIB,
      transport: 'ws',
    })
    expect(screen.getByText(/estimating time left/)).toBeTruthy()

    now = 2000
    await rerender({
      label: 'Uploading',
      done: 4 * MIB,
      total: 10 * MIB,
      transport: 'ws',
    })
    // 4 MiB in 2 s is 2 MiB/s; 6 MiB are left, so 3 seconds.
    expect(screen.getByText('4 MiB of 10 MiB')).toBeTruthy()
    expect(screen.getByText('2 MiB/s')).toBeTruthy()
    expect(screen.getByText('3 seconds left')).toBeTruthy()
    // The transport is a detail on its own line, not part of the figures.
    expect(screen.getByText('Transfer method: WebSocket').closest('.details')).toBeNull()
    const bar = screen.getByRole('progressbar', { name: 'Uploading' }) as HTMLProgressElement
    expect(bar.value).toBe(4 * MIB)
    expect(bar.max).toBe(10 * MIB)
  })

  it('starts measuring again when the count goes back (a new transfer)', async () => {
    let now = 0
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    const { rerender } = render(ProgressBar, { label: 'Up', done: 0, total: 100, transport: null })
    now = 1000
    await rerender({ label: 'Up', done: 90, total: 100, transport: null })
    now = 2000
    await rerender({ label: 'Up', done: 10, total: 100, transport: 'chunks' })
    expect(screen.getByText(/estimating time left/)).toBeTruthy()
    expect(screen.getByText('Transfer method: HTTP')).toBeTruthy()
  })
})
