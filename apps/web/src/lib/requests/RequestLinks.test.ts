// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'

import RequestLinks from './RequestLinks.svelte'

const request = {
  uploadLink: 'https://files.example/r/5b0c2d64-8f8e-4d47-9a55-1f1c3a0d7e10#AQAupload',
  inboxLink: 'https://files.example/i/5b0c2d64-8f8e-4d47-9a55-1f1c3a0d7e10#AQAinbox',
}

afterEach(() => cleanup())

describe('RequestLinks', () => {
  it('puts each link under wording that says who it is for', () => {
    render(RequestLinks, { request, hasPassword: false })
    const upload = screen.getByRole<HTMLInputElement>('textbox', {
      name: 'Upload link (for senders)',
    })
    const inbox = screen.getByRole<HTMLInputElement>('textbox', { name: 'Inbox link (yours)' })
    expect(upload.value).toBe(request.uploadLink)
    expect(inbox.value).toBe(request.inboxLink)
    expect(screen.getByRole('button', { name: 'Copy: Upload link (for senders)' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Copy: Inbox link (yours)' })).toBeTruthy()
  })

  it('shows a QR code for the upload link only: the inbox link must not be photographed away', async () => {
    render(RequestLinks, { request, hasPassword: false })
    const uploadSection = screen.getByRole('region', { name: /^Upload link/ })
    const inboxSection = screen.getByRole('region', { name: /^Inbox link/ })
    expect(await within(uploadSection).findByRole('img')).toBeTruthy()
    expect(within(inboxSection).queryByRole('img')).toBeNull()
    expect(screen.getAllByRole('img')).toHaveLength(1)
  })

  it('says the inbox also needs the password when there is one', () => {
    const { unmount } = render(RequestLinks, { request, hasPassword: false })
    expect(screen.queryByText(/and the password you chose/)).toBeNull()
    unmount()
    render(RequestLinks, { request, hasPassword: true })
    expect(screen.getByText(/and the password you chose/)).toBeTruthy()
  })
})
