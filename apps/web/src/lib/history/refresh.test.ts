import { ApiError, buildLink } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import type { HistoryItem } from '../state/history-store'
import { fetchStatus, inboxNeedsPassword, type StatusSource } from './refresh'

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e'
const NOW = new Date('2026-01-01T00:00:00.000Z')
const secret = new Uint8Array(32).fill(7)
const inboxLink = buildLink('http://x', { kind: 'inbox', id: ID, secret })
const lockedInbox = buildLink('http://x', {
  kind: 'inbox',
  id: ID,
  secret,
  passwordSalt: new Uint8Array(16).fill(1),
})

function item(kind: HistoryItem['kind'], extra: Partial<HistoryItem> = {}): HistoryItem {
  return {
    kind,
    id: ID,
    link: 'http://x/d/' + ID,
    label: 'x',
    createdAt: NOW.toISOString(),
    expiresAt: NOW.toISOString(),
    limit: 5,
    ...extra,
  }
}

function source(overrides: Partial<StatusSource>): StatusSource {
  const unused = () => Promise.reject(new Error('not asked for'))
  return {
    inspectFile: unused,
    inspectNote: unused,
    openInbox: unused,
    release: () => Promise.resolve(),
    ...overrides,
  }
}

type Inbox = Awaited<ReturnType<StatusSource['openInbox']>>['inbox']

/** A source whose inbox reads as `inbox`, open and closing at `C` unless it says otherwise. */
function inboxOf(inbox: Omit<Inbox, 'closesAt' | 'open'> & Partial<Inbox>): Partial<StatusSource> {
  return {
    openInbox: async () => ({ handle: 'h', inbox: { closesAt: 'C', open: true, ...inbox } }),
  }
}

describe('fetchStatus', () => {
  it('reports downloads left and the expiry of a file', async () => {
    const status = await fetchStatus(
      item('file'),
      source({
        inspectFile: async () => ({ maxDownloads: 5, downloadCount: 2, expiresAt: 'E' }),
      }),
      NOW,
    )
    expect(status).toEqual({
      state: 'available',
      left: 3,
      expiresAt: 'E',
      checkedAt: NOW.toISOString(),
    })
  })

  it('reports views left of a note', async () => {
    const status = await fetchStatus(
      item('note'),
      source({ inspectNote: async () => ({ maxViews: 1, viewCount: 0, expiresAt: 'E' }) }),
      NOW,
    )
    expect(status.left).toBe(1)
  })

  it('reports uploads left and whether a request is open, letting go of the inbox', async () => {
    const released: string[] = []
    const status = await fetchStatus(
      item('request', { inboxLink }),
      source({
        ...inboxOf({ maxUploads: 10, usedUploads: 4, brief: { acceptsNote: false }, open: false }),
        release: async (h) => void released.push(h),
      }),
      NOW,
    )
    expect(status).toMatchObject({ state: 'available', left: 6, expiresAt: 'C', open: false })
    expect(released).toEqual(['h'])
  })

  it('counts uploads left as the requester chose them when senders may add a note', async () => {
    // One upload with a note, taken by files alone: none left, though a slot is.
    const status = await fetchStatus(
      item('request', { inboxLink }),
      source(
        inboxOf({ maxUploads: 2, usedUploads: 1, usedNotes: 0, brief: { acceptsNote: true } }),
      ),
      NOW,
    )
    expect(status).toMatchObject({ state: 'available', left: 0 })
  })

  it.each([404, 410])('shows an item answering %d as gone', async (code) => {
    const status = await fetchStatus(
      item('file'),
      source({ inspectFile: () => Promise.reject(new ApiError(code, 'x')) }),
      NOW,
    )
    expect(status.state).toBe('gone')
  })

  it('says unknown when the server cannot be asked, and never opens a locked inbox', async () => {
    expect(
      (
        await fetchStatus(
          item('file'),
          source({ inspectFile: () => Promise.reject(new Error('x')) }),
        )
      ).state,
    ).toBe('unknown')
    expect(inboxNeedsPassword(lockedInbox)).toBe(true)
    expect(inboxNeedsPassword(inboxLink)).toBe(false)
    expect((await fetchStatus(item('request', { inboxLink: lockedInbox }), source({}))).state).toBe(
      'unknown',
    )
  })
})
