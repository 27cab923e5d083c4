import { beforeEach, describe, expect, it, vi } from 'vitest'

import { Deletion } from './deletion.svelte'
import { memoryBackend } from './history-store'
import { addToHistory, historyKey, historyState, useHistoryBackend } from './history.svelte'

const ID = '22222222-2222-4222-8222-222222222222'
const KEY = historyKey({ kind: 'file', id: ID })

beforeEach(async () => {
  useHistoryBackend(memoryBackend())
  await addToHistory({
    kind: 'file',
    id: ID,
    link: 'http://x/d/2#k',
    label: 'a.txt',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
    limit: 1,
    ownerToken: 'owner',
  })
})

const listed = () => historyState.items.some((item) => historyKey(item) === KEY)

describe('deleting from a result page', () => {
  it('deletes only once confirmed, then forgets the item in the history', async () => {
    const remove = vi.fn(() => Promise.resolve())
    const deletion = new Deletion(remove, KEY)
    await deletion.confirm()
    expect(remove).not.toHaveBeenCalled()
    deletion.ask()
    deletion.cancel()
    expect(deletion.step).toBe('idle')
    deletion.ask()
    expect(deletion.step).toBe('confirming')
    const done = deletion.confirm()
    expect(deletion.step).toBe('deleting')
    // A second confirmation while the first runs deletes nothing more.
    await deletion.confirm()
    await done
    expect(remove).toHaveBeenCalledTimes(1)
    expect(deletion.step).toBe('deleted')
    expect(listed()).toBe(false)
  })

  it('keeps the item and says why when the server refuses', async () => {
    const deletion = new Deletion(() => Promise.reject(new Error('Invalid owner token')), KEY)
    deletion.ask()
    await deletion.confirm()
    expect(deletion.step).toBe('idle')
    expect(deletion.failure).toContain('Invalid owner token')
    expect(listed()).toBe(true)
  })
})
