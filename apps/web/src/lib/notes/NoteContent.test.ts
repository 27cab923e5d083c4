// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import NoteContent from './NoteContent.svelte'
import { serializePasswordList } from '@fileshare/protocol'
import { encodeSshKeyPair } from './ssh-key'
import { formatSshKeyNote } from './ssh-note'

const writeText = vi.fn<(text: string) => Promise<void>>()

beforeEach(() => {
  writeText.mockReset().mockResolvedValue(undefined)
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
})
afterEach(() => cleanup())

describe('NoteContent renders by type', () => {
  it('shows text as text, markup included, and copies the whole note', async () => {
    const text = '<b>not bold</b>\nsecond line'
    const { container } = render(NoteContent, { text, contentType: 'text' })
    expect(container.querySelector('b')).toBeNull()
    expect(screen.getByLabelText('Note').textContent).toBe(text)
    await fireEvent.click(screen.getByRole('button', { name: 'Copy whole note' }))
    expect(writeText).toHaveBeenCalledWith(text)
  })

  it('renders markdown without letting HTML or script links through', async () => {
    const text =
      '# Heading\n\n<img src=x onerror=alert(1)>\n\n[bad](javascript:alert(1)) [ok](https://example.org)'
    const { container } = render(NoteContent, { text, contentType: 'markdown' })
    await screen.findByRole('heading', { name: 'Heading' })
    expect(container.querySelector('img')).toBeNull()
    const links = screen.getAllByRole('link')
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.org'])
    expect(links[0]!.getAttribute('rel')).toBe('noopener noreferrer')
  })

  it('highlights code and lets the reader pick the language', async () => {
    const text = 'SELECT id FROM notes WHERE views < 3;'
    const { container } = render(NoteContent, { text, contentType: 'code' })
    const select = screen.getByLabelText<HTMLSelectElement>('Highlight as')
    await fireEvent.change(select, { target: { value: 'sql' } })
    await waitFor(() =>
      expect(container.querySelector('.hljs-keyword')?.textContent).toBe('SELECT'),
    )
    expect(screen.getByLabelText('Note').textContent).toBe(text)
  })

  it('lists passwords hidden, shows one on request, and copies each', async () => {
    const text = serializePasswordList([
      { label: 'Mail', username: 'ana', password: 's3cret!', url: 'https://mail.example' },
      { label: '', username: '', password: 'other', url: 'javascript:alert(1)' },
    ])
    render(NoteContent, { text, contentType: 'password' })
    const list = screen.getByRole('list', { name: 'Passwords' })
    expect(within(list).getAllByRole('listitem')).toHaveLength(2)
    expect(list.textContent).not.toContain('s3cret!')
    await fireEvent.click(screen.getByRole('button', { name: 'Show password of Mail' }))
    expect(list.textContent).toContain('s3cret!')
    await fireEvent.click(screen.getByRole('button', { name: 'Copy password of Entry 2' }))
    expect(writeText).toHaveBeenLastCalledWith('other')
    await fireEvent.click(screen.getByRole('button', { name: 'Copy username of Mail' }))
    expect(writeText).toHaveBeenLastCalledWith('ana')
    // Only the http(s) address becomes a link.
    expect(screen.getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual([
      'https://mail.example/',
    ])
  })

  it('shows a password note in another shape as one password', async () => {
    render(NoteContent, { text: 'hunter2', contentType: 'password' })
    await fireEvent.click(screen.getByRole('button', { name: 'Copy password of Entry 1' }))
    expect(writeText).toHaveBeenCalledWith('hunter2')
  })

  it('gives each SSH key its own copy button', async () => {
    const seed = new Uint8Array(32).fill(1)
    const pub = new Uint8Array(32).fill(2)
    const pair = encodeSshKeyPair(seed, pub, 'me@host', 5)
    render(NoteContent, { text: formatSshKeyNote(pair), contentType: 'sshkey' })
    await fireEvent.click(screen.getByRole('button', { name: 'Copy public key 1' }))
    expect(writeText).toHaveBeenLastCalledWith(pair.publicKey)
    await fireEvent.click(screen.getByRole('button', { name: 'Copy private key 1' }))
    expect(writeText).toHaveBeenLastCalledWith(pair.privateKey)
    expect(await screen.findByText(/^Fingerprint SHA256:/)).toBeTruthy()
  })

  it('heads each entry and each key one level under the page’s heading (axe heading-order)', () => {
    const seed = new Uint8Array(32).fill(1)
    const pair = encodeSshKeyPair(seed, new Uint8Array(32).fill(2), 'me@host', 5)
    const notes = [
      { text: serializePasswordList([{ label: 'Mail', username: '', password: 'x', url: '' }]) },
      { text: formatSshKeyNote(pair), contentType: 'sshkey' as const },
    ]
    for (const { text, contentType = 'password' as const } of notes) {
      const { container } = render(NoteContent, { text, contentType })
      const levels = [...container.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => h.tagName)
      expect(levels.length, contentType).toBeGreaterThan(0)
      expect(new Set(levels), contentType).toEqual(new Set(['H2']))
      cleanup()
    }
  })
})
