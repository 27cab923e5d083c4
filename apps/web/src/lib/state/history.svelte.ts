/**
 * The reactive history of items sent from this browser (files, notes, requests), kept in
 * IndexedDB. Pages add to it after sending; the history page lists, refreshes and removes.
 */
import {
  historyKey,
  memoryBackend,
  removeItem,
  sortHistory,
  upsertItem,
  type HistoryBackend,
  type HistoryItem,
  type HistoryStatus,
} from './history-store'
import { indexedDbBackend } from './history-idb'

export type { HistoryItem, HistoryKind, HistoryStatus } from './history-store'
export { historyKey } from './history-store'

interface HistoryState {
  items: HistoryItem[]
  loaded: boolean
  /** False when the browser refused storage; the list then lives only until reload. */
  persistent: boolean
}

export const historyState: HistoryState = $state({ items: [], loaded: false, persistent: true })

let backend: HistoryBackend | undefined

function currentBackend(): HistoryBackend {
  if (!backend) {
    try {
      backend = indexedDbBackend()
    } catch {
      backend = memoryBackend()
      historyState.persistent = false
    }
  }
  return backend
}

/** Replaces the storage (tests use the in-memory backend). */
export function useHistoryBackend(next: HistoryBackend): void {
  backend = next
  historyState.items = []
  historyState.loaded = false
  historyState.persistent = true
}

async function guarded<T>(work: (b: HistoryBackend) => Promise<T>, fallback: T): Promise<T> {
  try {
    return await work(currentBackend())
  } catch {
    // Storage blocked (private mode, quota): keep working in memory for this visit.
    if (historyState.persistent) {
      backend = memoryBackend($state.snapshot(historyState.items) as HistoryItem[])
      historyState.persistent = false
      return work(backend).catch(() => fallback)
    }
    return fallback
  }
}

export async function loadHistory(): Promise<HistoryItem[]> {
  const items = await guarded((b) => b.all(), [] as HistoryItem[])
  historyState.items = sortHistory(items)
  historyState.loaded = true
  return historyState.items
}

export async function addToHistory(item: HistoryItem): Promise<void> {
  historyState.items = upsertItem(historyState.items, item)
  await guarded((b) => b.put(structuredClone(item)), undefined)
}

export async function setHistoryStatus(key: string, status: HistoryStatus): Promise<void> {
  const item = historyState.items.find((i) => historyKey(i) === key)
  if (!item) return
  const next: HistoryItem = { ...($state.snapshot(item) as HistoryItem), status }
  historyState.items = upsertItem(historyState.items, next)
  await guarded((b) => b.put(next), undefined)
}

/** Forgets an item locally (the server copy is untouched). */
export async function forgetHistoryItem(key: string): Promise<void> {
  historyState.items = removeItem(historyState.items, key)
  await guarded((b) => b.delete(key), undefined)
}
