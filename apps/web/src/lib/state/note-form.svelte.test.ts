// @vitest-environment jsdom
import type { ConfigResponse, CreatedNote, CreateNoteOptions } from '@fileshare/protocol'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { errorMessage } from '../errors'
import { t } from '../i18n/t'
import { serializePasswordList } from '@fileshare/protocol'
import { config } from './config.svelte'
import { NoteForm } from './note-form.svelte'

const worker = vi.hoisted(() => ({
  createNote: vi.fn<(options: CreateNoteOptions) => Promise<CreatedNote>>(),
  deleteNote: vi.fn<(id: string, ownerToken: string) => Promise<void>>(),
}))
vi.mock('../worker/client', () => worker)

const history = vi.hoisted(() => ({ addToHistory: vi.fn(() => Promise.resolve()) }))
vi.mock('./history.svelte', async (original) => ({
  ...(await original<object>()),
  addToHistory: history.addToHistory,
}))

const CREATED: CreatedNote = {
  id: '0b7d3c52-2d51-4a5e-9a0e-1f6a1c8e2b11',
  link: 'https://share.example/n/0b7d3c52-2d51-4a5e-9a0e-1f6a1c8e2b11#k',
  ownerToken: 'owner',
  expiresAt: '2026-05-01T00:00:00.000Z',
} as CreatedNote

beforeEach(() => {
  config.value = {
    noteMaxSize: 20,
    noteViewOptions: [1, 5, 10],
    noteDefaultViews: 5,
    noteExpireOptions: [3600, 86_400],
    noteDefaultExpire: 86_400,
  } as Partial<ConfigResponse> as ConfigResponse
  worker.createNote.mockReset()
  history.addToHistory.mockClear()
})

describe('the note form', () => {
  it('keeps each kind’s draft while switching, and sends the chosen kind', async () => {
    const form = new NoteForm()
    form.drafts.prose = '# Plan'
    form.type = 'password'
    expect(form.empty).toBe(true)
    form.drafts.password[0]!.password = 'pw'
    form.type = 'sshkey'
    form.drafts.sshkey = 'ssh-ed25519 AAAA'
    // Text, markdown and code share one draft; the list and the keys keep theirs.
    form.type = 'markdown'
    expect(form.drafts.prose).toBe('# Plan')
    expect(form.bytes).toBe(6)

    worker.createNote.mockResolvedValue(CREATED)
    await form.submit()
    expect(worker.createNote).toHaveBeenCalledWith({
      text: '# Plan',
      contentType: 'markdown',
      maxViews: 5,
      expireSec: 86_400,
    })
    expect(form.result).toEqual({ note: CREATED, maxViews: 5, hasPassword: false })
    expect(history.addToHistory).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'note', id: CREATED.id, limit: 5 }),
    )

    form.another()
    expect(form.result).toBeNull()
    expect(form.type).toBe('markdown')
    expect(form.drafts.prose).toBe('')
    form.type = 'password'
    expect(serializePasswordList(form.drafts.password)).toBe(
      serializePasswordList([{ label: '', username: '', password: '', url: '' }]),
    )
  })

  it('says why an empty or too large draft cannot go, and forgets it when the kind changes', async () => {
    const form = new NoteForm()
    form.type = 'password'
    await form.submit()
    expect(form.problem).toBe(t('note.pw.empty'))
    form.type = 'text'
    expect(form.problem).toBeNull()
    await form.submit()
    expect(form.problem).toBe(t('note.empty'))

    form.drafts.prose = 'x'.repeat(21)
    expect(form.overLimit).toBe(true)
    await form.submit()
    expect(form.problem).toContain('20\u00a0B')
    expect(worker.createNote).not.toHaveBeenCalled()
  })

  it('preselects the server’s views and expiry until one it offers is picked', async () => {
    const form = new NoteForm()
    expect(form.maxViews).toBe(5)
    expect(form.expireSec).toBe(86_400)
    form.maxViews = 10
    form.expireSec = 3600
    form.password = 'secret'
    form.drafts.prose = 'hello'
    worker.createNote.mockResolvedValue(CREATED)
    await form.submit()
    expect(worker.createNote).toHaveBeenCalledWith(
      expect.objectContaining({ maxViews: 10, expireSec: 3600, password: 'secret' }),
    )
    expect(form.result?.hasPassword).toBe(true)
    form.another()
    expect(form.password).toBe('')
    expect(form.maxViews).toBe(10)
  })

  it('holds the page while a draft or a send is unsaved, and keeps the draft when sending fails', async () => {
    const form = new NoteForm()
    expect(form.unsaved).toBe(false)
    form.drafts.prose = 'hello'
    expect(form.unsaved).toBe(true)
    worker.createNote.mockRejectedValue(new Error('offline'))
    const sending = form.submit()
    expect(form.busy).toBe(true)
    await sending
    expect(form.busy).toBe(false)
    expect(form.result).toBeNull()
    expect(form.drafts.prose).toBe('hello')
    expect(form.problem).toBe(
      t('note.failed', { message: errorMessage(new Error('offline'), 'create') }),
    )
  })
})
