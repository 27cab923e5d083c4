// @vitest-environment jsdom
import {
  ApiError,
  buildLink,
  encryptedSize,
  PASSWORD_SALT_BYTES,
  ProtocolError,
  SECRET_SIZE,
} from '@fileshare/protocol'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { t } from '../i18n/t'
import type { InboxEntryView, InboxView, OpenedInboxView } from '../worker/client'
import { InboxPage } from './inbox.svelte'

const worker = vi.hoisted(() => ({
  openInbox: vi.fn<(href: string, password?: string) => Promise<OpenedInboxView>>(),
  release: vi.fn<(handle: string) => Promise<void>>(),
  downloadInboxFile: vi.fn(),
  deleteInboxFile: vi.fn<(target: unknown, id: string) => Promise<void>>(),
  closeInbox: vi.fn<(target: unknown) => Promise<void>>(),
  deleteInbox: vi.fn<(target: unknown) => Promise<void>>(),
}))
vi.mock('../worker/client', () => worker)

const history = vi.hoisted(() => ({ setHistoryStatus: vi.fn(() => Promise.resolve()) }))
vi.mock('./history.svelte', async (original) => ({
  ...(await original<object>()),
  setHistoryStatus: history.setHistoryStatus,
}))
vi.mock('../save/save', async (original) => ({
  ...(await original<object>()),
  detectSaveMethod: () => Promise.resolve('file-system'),
}))

const ID = '0b7d3c52-2d51-4a5e-9a0e-1f6a1c8e2b11'
const link = (protectedLink: boolean) =>
  buildLink('https://share.example', {
    kind: 'inbox',
    id: ID,
    secret: new Uint8Array(SECRET_SIZE).fill(7),
    ...(protectedLink ? { passwordSalt: new Uint8Array(PASSWORD_SALT_BYTES).fill(1) } : {}),
  })

function file(id: string): InboxEntryView {
  return {
    id,
    size: encryptedSize(100),
    fileCount: 1,
    metadata: {
      archive: false,
      files: [{ name: `${id}.pdf`, type: 'application/pdf', size: 100 }],
    },
    downloadCount: 0,
    maxDownloads: 2,
    expiresAt: '2026-05-01T00:00:00.000Z',
    createdAt: '2026-04-01T00:00:00.000Z',
  }
}

function note(id: string, withFiles?: string): InboxEntryView {
  const entry = file(id)
  const files = [{ name: 'note.txt', type: 'text/plain', size: 5 }]
  const metadata = { archive: false, files, kind: 'note' as const }
  return { ...entry, metadata: withFiles ? { ...metadata, with: withFiles } : metadata }
}

function view(handle: string, entries: InboxEntryView[]): OpenedInboxView {
  const inbox: InboxView = {
    id: ID,
    brief: { message: 'Send the forms.', acceptsNote: true },
    uploadLink: 'https://share.example/r/x#y',
    hasPassword: false,
    open: true,
    closesAt: '2099-01-01T00:00:00.000Z',
    createdAt: '2026-04-01T00:00:00.000Z',
    maxUploads: 10,
    maxSize: 1000,
    usedUploads: entries.length,
    usedBytes: 0,
    entries,
    unreadable: [],
    inboxToken: 'read',
    inboxOwnerToken: 'owner',
  }
  return { handle, inbox }
}

/** A page on `href` started as the component starts it, once the inbox has opened. */
async function openedPage(href: string): Promise<{ page: InboxPage; leave: () => void }> {
  const page = new InboxPage(href)
  const leave = page.start()
  await vi.waitFor(() => expect(page.saveMethod).not.toBeNull())
  return { page, leave }
}

beforeEach(() => {
  for (const mock of Object.values(worker)) mock.mockReset()
  worker.release.mockResolvedValue(undefined)
  history.setHistoryStatus.mockClear()
})

describe('opening the inbox', () => {
  it('opens an unprotected link at once and releases its keys when the page goes', async () => {
    worker.openInbox.mockResolvedValue(view('h1', [file('a')]))
    const { page, leave } = await openedPage(link(false))
    expect(worker.openInbox).toHaveBeenCalledWith(link(false), undefined)
    expect(page.phase).toEqual({ name: 'open' })
    expect(page.entry('a').status).toBe('idle')
    // Senders may add a note, so each of them has two of the ten uploads.
    expect(page.used).toEqual({ used: 1, max: 5 })
    leave()
    expect(worker.release).toHaveBeenCalledWith('h1')
  })

  it('fails with the reason when the link is malformed', () => {
    const page = new InboxPage('https://share.example/i/not-a-uuid#abc')
    page.start()
    expect(page.phase).toMatchObject({ name: 'failed', kind: 'badLink' })
    expect(worker.openInbox).not.toHaveBeenCalled()
  })

  it('asks for the password first; a wrong one is said at the field, the right one opens', async () => {
    const page = new InboxPage(link(true))
    page.start()
    expect(page.phase).toEqual({ name: 'locked' })
    expect(worker.openInbox).not.toHaveBeenCalled()

    await page.unlock()
    expect(worker.openInbox).not.toHaveBeenCalled()

    page.password = 'wrong'
    worker.openInbox.mockRejectedValueOnce(new ProtocolError('WRONG_PASSWORD', 'no'))
    await page.unlock()
    expect(page.passwordError).toBe(t('error.wrongPassword'))
    expect(page.phase).toEqual({ name: 'locked' })
    expect(page.unlocking).toBe(false)

    page.password = 'right'
    worker.openInbox.mockResolvedValueOnce(view('h1', []))
    await page.unlock()
    expect(worker.openInbox).toHaveBeenLastCalledWith(link(true), 'right')
    expect(page.passwordError).toBeNull()
    expect(page.phase).toEqual({ name: 'open' })
  })

  it('says a lockout at the field rather than failing the page', async () => {
    const page = new InboxPage(link(true))
    page.start()
    page.password = 'guess'
    worker.openInbox.mockRejectedValueOnce(new ApiError(429, 'locked', { retryAfterSec: 60 }))
    await page.unlock()
    expect(page.phase).toEqual({ name: 'locked' })
    expect(page.passwordError).not.toBeNull()
  })
})

describe('refreshing', () => {
  it('keeps what is shown when the read fails, and swaps the keys when it succeeds', async () => {
    worker.openInbox.mockResolvedValue(view('h1', [file('a')]))
    const { page } = await openedPage(link(false))

    worker.openInbox.mockRejectedValueOnce(new ApiError(500, 'Server down'))
    await page.refresh()
    expect(page.notice).toMatchObject({ error: true })
    expect(page.inbox?.entries.map((e) => e.id)).toEqual(['a'])
    expect(page.refreshing).toBe(false)

    worker.openInbox.mockResolvedValueOnce(view('h2', [file('a'), file('b')]))
    await page.refresh()
    expect(page.notice).toBeNull()
    expect(page.inbox?.entries.map((e) => e.id)).toEqual(['a', 'b'])
    expect(page.entry('b').status).toBe('idle')
    // The first opening's keys are forgotten in the worker once the new ones are in use.
    expect(worker.release).toHaveBeenCalledWith('h1')
  })
})

describe('an entry', () => {
  it('is deleted together with the note that came with it', async () => {
    worker.openInbox.mockResolvedValue(view('h1', [file('a'), note('n', 'a'), file('b')]))
    const { page } = await openedPage(link(false))
    const [group] = page.groups
    expect(group?.note?.id).toBe('n')

    page.askRemove('a')
    expect(page.entry('a').status).toBe('confirm')
    page.cancelRemove('a')
    expect(page.entry('a').status).toBe('idle')

    worker.deleteInboxFile.mockResolvedValue(undefined)
    page.askRemove('a')
    await page.remove(group!, 'a.pdf')
    expect(worker.deleteInboxFile.mock.calls.map(([, id]) => id)).toEqual(['a', 'n'])
    expect(page.inbox?.entries.map((e) => e.id)).toEqual(['b'])
    expect(page.groups.map((g) => g.entry.id)).toEqual(['b'])
    expect(page.notice).toEqual({ text: t('inbox.entry.deleted', { name: 'a.pdf' }), error: false })
  })

  it('stays, with the reason, when its deletion fails', async () => {
    worker.openInbox.mockResolvedValue(view('h1', [file('a')]))
    const { page } = await openedPage(link(false))
    worker.deleteInboxFile.mockRejectedValue(new ApiError(500, 'Server down'))
    page.askRemove('a')
    await page.remove(page.groups[0]!, 'a.pdf')
    expect(page.inbox?.entries.map((e) => e.id)).toEqual(['a'])
    expect(page.entry('a')).toMatchObject({ status: 'idle', error: true })
    expect(page.entry('a').message).toContain('a.pdf')
  })

  it('reads a sender note onto the page and counts the download', async () => {
    worker.openInbox.mockResolvedValue(view('h1', [note('n')]))
    const { page } = await openedPage(link(false))
    worker.downloadInboxFile.mockResolvedValue({
      stream: new Response('Hello').body,
      finished: Promise.resolve(),
      plainSize: 5,
      fileCount: 1,
    })
    const reading = page.readNote(page.inbox!.entries[0]!)
    expect(page.entry('n').status).toBe('downloading')
    expect(page.downloading).toBe(true)
    await reading
    expect(worker.downloadInboxFile).toHaveBeenCalledWith('h1', 'n', expect.anything())
    expect(page.entry('n')).toMatchObject({ status: 'idle', text: 'Hello', message: null })
    expect(page.inbox?.entries[0]?.downloadCount).toBe(1)
    expect(page.downloading).toBe(false)
  })
})

describe('managing the request', () => {
  it('closes it here and in this browser’s history', async () => {
    worker.openInbox.mockResolvedValue(view('h1', []))
    const { page } = await openedPage(link(false))
    page.askManage('confirmClose')
    expect(page.manage).toBe('confirmClose')
    page.askManage('confirmDelete')
    expect(page.manage).toBe('confirmClose')
    page.cancelManage()
    expect(page.manage).toBe('idle')

    worker.closeInbox.mockResolvedValue(undefined)
    page.askManage('confirmClose')
    await page.closeRequest()
    expect(page.inbox?.open).toBe(false)
    expect(page.manage).toBe('idle')
    expect(page.notice).toEqual({ text: t('inbox.closedDone'), error: false })
    expect(history.setHistoryStatus).toHaveBeenCalledWith(
      `request:${ID}`,
      expect.objectContaining({ state: 'available', open: false }),
    )
  })

  it('deletes it, and a failed deletion keeps the inbox with the reason', async () => {
    worker.openInbox.mockResolvedValue(view('h1', []))
    const { page } = await openedPage(link(false))
    worker.deleteInbox.mockRejectedValueOnce(new ApiError(500, 'Server down'))
    await page.deleteRequest()
    expect(page.phase).toEqual({ name: 'open' })
    expect(page.notice).toMatchObject({ error: true })

    worker.deleteInbox.mockResolvedValueOnce(undefined)
    await page.deleteRequest()
    expect(page.phase).toEqual({ name: 'deleted' })
    expect(history.setHistoryStatus).toHaveBeenCalledWith(
      `request:${ID}`,
      expect.objectContaining({ state: 'gone' }),
    )
  })
})
