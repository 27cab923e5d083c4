import { beforeEach, describe, expect, it } from 'vitest'

import {
  addToHistory,
  forgetHistoryItem,
  historyState,
  loadHistory,
  setHistoryStatus,
  useHistoryBackend,
} from './history.svelte'
import { memoryBackend, type HistoryBackend, type HistoryItem } from './history-store'

const file: HistoryItem = {
  kind: 'file',
  id: '11111111-1111-4111-8111-111111111111',
  link: 'http://x/d/1#k',
  label: 'a.txt',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-02T00:00:00.000Z',
  limit: 3,
  ownerToken: 'owner',
}

const note: HistoryItem = {
  ...file,
  kind: 'note',
  label: 'Note',
  createdAt: '2026-01-03T00:00:00.000Z',
}

let backend: HistoryBackend

beforeEach(() => {
  backend = memoryBackend()
  useHistoryBackend(backend)
})

describe('history state', () => {
  it('adds items newest first and keeps them in the backend', async () => {
    await addToHistory(file)
    await addToHistory(note)
    expect(historyState.items.map((i) => i.kind)).toEqual(['note', 'file'])
    useHistoryBackend(backend)
    await loadHistory()
    expect(historyState.loaded).toBe(true)
    expect(historyState.items.map((i) => i.kind)).toEqual(['note', 'file'])
  })

  it('stores a refreshed status and forgets items', async () => {
    await addToHistory(file)
    const status = { state: 'gone' as const, checkedAt: '2026-01-01T01:00:00.000Z' }
    await setHistoryStatus('file:' + file.id, status)
    expect((await backend.all())[0]!.status).toEqual(status)
    await forgetHistoryItem('file:' + file.id)
    expect(historyState.items).toEqual([])
    expect(await backend.all()).toEqual([])
  })

  it('keeps working in memory when the storage refuses', async () => {
    const failing: HistoryBackend = {
      all: () => Promise.reject(new Error('blocked')),
      put: () => Promise.reject(new Error('blocked')),
      delete: () => Promise.reject(new Error('blocked')),
    }
    useHistoryBackend(failing)
    await addToHistory(file)
    expect(historyState.persistent).toBe(false)
    expect(historyState.items).toHaveLength(1)
    expect(await loadHistory()).toHaveLength(1)
  })
})
