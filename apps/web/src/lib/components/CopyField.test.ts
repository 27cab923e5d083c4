// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it, vi } from 'vitest'

import CopyField from './CopyField.svelte'

const LINK = 'https://share.example.org/d/1#key'

afterEach(() => {
  cleanup()
  Reflect.deleteProperty(navigator, 'share')
})

describe('CopyField', () => {
  it('offers the share sheet for a shareable link where the browser has one', async () => {
    const share = vi.fn(() => Promise.resolve())
    Object.defineProperty(navigator, 'share', { value: share, configurable: true })
    render(CopyField, { label: 'Share link', value: LINK, share: true })
    await fireEvent.click(screen.getByRole('button', { name: 'Share: Share link' }))
    expect(share).toHaveBeenCalledWith({ url: LINK })
  })

  it('stays quiet when the share sheet is dismissed', async () => {
    const share = vi.fn(() => Promise.reject(new DOMException('dismissed', 'AbortError')))
    Object.defineProperty(navigator, 'share', { value: share, configurable: true })
    render(CopyField, { label: 'Share link', value: LINK, share: true })
    await fireEvent.click(screen.getByRole('button', { name: 'Share: Share link' }))
    expect(share).toHaveBeenCalledOnce()
    expect(screen.getByRole('status').textContent?.trim()).toBe('')
  })

  it('shows no share button without a share sheet, or for a link not to be shared', () => {
    render(CopyField, { label: 'Share link', value: LINK, share: true })
    expect(screen.queryByRole('button', { name: /^Share:/ })).toBeNull()
    cleanup()
    Object.defineProperty(navigator, 'share', { value: vi.fn(), configurable: true })
    render(CopyField, { label: 'Inbox link', value: LINK })
    expect(screen.queryByRole('button', { name: /^Share:/ })).toBeNull()
    expect(screen.getByRole('button', { name: 'Copy: Inbox link' })).toBeTruthy()
  })
})
