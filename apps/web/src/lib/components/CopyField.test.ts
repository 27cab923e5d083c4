// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it, vi } from 'vitest'

import CopyField from './CopyField.svelte'

const LINK = 'https://share.example.org/d/1#key'

afterEach(() => {
  cleanup()
  Reflect.deleteProperty(navigator, 'share')
  Reflect.deleteProperty(navigator, 'clipboard')
})

/** A share sheet that fails with `name`, and a clipboard that records what it is given. */
function failingShare(name: string) {
  const share = vi.fn(() => Promise.reject(new DOMException('no sheet', name)))
  const writeText = vi.fn((_text: string) => Promise.resolve())
  Object.defineProperty(navigator, 'share', { value: share, configurable: true })
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
  return { share, writeText }
}

describe('CopyField', () => {
  it('offers the share sheet for a shareable link where the browser has one', async () => {
    const share = vi.fn(() => Promise.resolve())
    Object.defineProperty(navigator, 'share', { value: share, configurable: true })
    render(CopyField, { label: 'Share link', value: LINK, share: true })
    await fireEvent.click(screen.getByRole('button', { name: 'Share: Share link' }))
    expect(share).toHaveBeenCalledWith({ url: LINK })
  })

  it('stays quiet and copies nothing when the share sheet is dismissed', async () => {
    const { share, writeText } = failingShare('AbortError')
    render(CopyField, { label: 'Share link', value: LINK, share: true })
    await fireEvent.click(screen.getByRole('button', { name: 'Share: Share link' }))
    expect(share).toHaveBeenCalledOnce()
    // Long enough for a copy that followed the failure to have run.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(writeText).not.toHaveBeenCalled()
    expect(screen.getByRole('status').textContent?.trim()).toBe('')
  })

  it('copies the link and says so when the browser refuses the share sheet', async () => {
    const { writeText } = failingShare('NotAllowedError')
    render(CopyField, { label: 'Share link', value: LINK, share: true })
    await fireEvent.click(screen.getByRole('button', { name: 'Share: Share link' }))
    await vi.waitFor(() => expect(writeText).toHaveBeenCalledWith(LINK))
    await vi.waitFor(() =>
      expect(screen.getByRole('status').textContent?.trim()).toBe(
        'Sharing is not available here, so the link was copied instead.',
      ),
    )
  })

  it('copies the link and says so', async () => {
    const writeText = vi.fn((_text: string) => Promise.resolve())
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    render(CopyField, { label: 'Share link', value: LINK })
    await fireEvent.click(screen.getByRole('button', { name: 'Copy: Share link' }))
    expect(writeText).toHaveBeenCalledWith(LINK)
    await vi.waitFor(() => expect(screen.getByRole('status').textContent?.trim()).toBe('Copied'))
  })

  it('shows "Copied" once: on the button, with the status line for screen readers only', async () => {
    const writeText = vi.fn((_text: string) => Promise.resolve())
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    render(CopyField, { label: 'Share link', value: LINK })
    await fireEvent.click(screen.getByRole('button', { name: 'Copy: Share link' }))
    await vi.waitFor(() => expect(screen.getByRole('status').textContent?.trim()).toBe('Copied'))
    const button = screen.getByRole('button', { name: 'Copy: Share link' })
    expect(button.textContent?.trim()).toBe('Copied')
    expect(screen.getByRole('status').classList.contains('visually-hidden')).toBe(true)
  })

  it('selects the link for copying by hand when the clipboard refuses it', async () => {
    const writeText = vi.fn(() => Promise.reject(new DOMException('denied', 'NotAllowedError')))
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    render(CopyField, { label: 'Share link', value: LINK })
    await fireEvent.click(screen.getByRole('button', { name: 'Copy: Share link' }))
    await vi.waitFor(() =>
      expect(screen.getByRole('status').textContent?.trim()).toBe(
        'Copying failed; select the text and copy it yourself.',
      ),
    )
    const input = screen.getByRole<HTMLInputElement>('textbox')
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, LINK.length])
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
