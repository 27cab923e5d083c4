import { describe, expect, it } from 'vitest'

import {
  historyKey,
  memoryBackend,
  removeItem,
  sortHistory,
  upsertItem,
  type HistoryItem,
} from './history-store'

function item(id: string, createdAt: string, extra: Partial<HistoryItem> = {}): HistoryItem {
  return {
    kind: 'file',
    id,
    link: `http://x/d/${id}#k`,
    label: id,
    createdAt,
    expiresAt: '2030-01-01T00:00:00.000Z',
    limit: 1,
    ownerToken: 'o',
    ...extra,
  }
}

describe('history list logic', () => {
  it('sorts newest first and keys by kind and id', () => {
    const a = item('a', '2026-01-01T00:00:00.000Z')
    const b = item('b', '2026-02-01T00:00:00.000Z')
    expect(sortHistory([a, b]).map((i) => i.id)).toEqual(['b', 'a'])
    expect(historyKey(a)).toBe('file:a')
    expect(historyKey({ kind: 'note', id: 'a' })).not.toBe(historyKey(a))
  })

  it('replaces an item with the same key instead of adding it twice', () => {
    const a = item('a', '2026-01-01T00:00:00.000Z')
    const list = upsertItem([a], { ...a, label: 'renamed' })
    expect(list).toHaveLength(1)
    expect(list[0]!.label).toBe('renamed')
    expect(upsertItem(list, item('a', '2026-01-01T00:00:00.000Z', { kind: 'note' }))).toHaveLength(
      2,
    )
  })

  it('removes by key', () => {
    const list = [item('a', '2026-01-01T00:00:00.000Z'), item('b', '2026-01-02T00:00:00.000Z')]
    expect(removeItem(list, 'file:a').map((i) => i.id)).toEqual(['b'])
  })

  it('keeps copies in the memory backend, so later edits do not leak into it', async () => {
    const backend = memoryBackend()
    const a = item('a', '2026-01-01T00:00:00.000Z')
    await backend.put(a)
    a.label = 'changed'
    expect((await backend.all())[0]!.label).toBe('a')
    await backend.delete('file:a')
    expect(await backend.all()).toEqual([])
  })
})
