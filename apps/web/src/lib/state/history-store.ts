/**
 * The list of items sent from this browser, independent of where it is kept: the IndexedDB
 * backend in the app, an in-memory one in tests. Items are keyed by kind and id, newest first.
 */

export type HistoryKind = 'file' | 'note' | 'request'

/** What a refresh from the server found out. */
export interface HistoryStatus {
  /** `gone`: the server answered 404 or 410; `unknown`: it could not be asked. */
  state: 'available' | 'gone' | 'unknown'
  /** Downloads, views or uploads left, when known. */
  left?: number
  expiresAt?: string
  /** Requests: still taking uploads. */
  open?: boolean
  checkedAt: string
}

export interface HistoryItem {
  kind: HistoryKind
  id: string
  /** The share link (file, note) or the upload link to hand out (request). */
  link: string
  /** File names, note type or request message, shown in the list. */
  label: string
  createdAt: string
  expiresAt: string
  /** Download limit (file), view limit (note) or upload limit (request). */
  limit: number
  /** Files and notes: deletes the item. */
  ownerToken?: string
  /** Requests: the requester's inbox link. */
  inboxLink?: string
  /** Requests: closes or deletes the request. */
  inboxOwnerToken?: string
  status?: HistoryStatus
}

export interface HistoryBackend {
  all(): Promise<HistoryItem[]>
  put(item: HistoryItem): Promise<void>
  delete(key: string): Promise<void>
}

export function historyKey(item: Pick<HistoryItem, 'kind' | 'id'>): string {
  return `${item.kind}:${item.id}`
}

/** Newest first; ties by key so the order is stable. */
export function sortHistory(items: readonly HistoryItem[]): HistoryItem[] {
  return [...items].sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || historyKey(a).localeCompare(historyKey(b)),
  )
}

/** Adds or replaces an item in a sorted list. */
export function upsertItem(items: readonly HistoryItem[], item: HistoryItem): HistoryItem[] {
  const key = historyKey(item)
  return sortHistory([...items.filter((i) => historyKey(i) !== key), item])
}

export function removeItem(items: readonly HistoryItem[], key: string): HistoryItem[] {
  return items.filter((i) => historyKey(i) !== key)
}

/** A backend in memory (tests, and browsers that block IndexedDB). */
export function memoryBackend(initial: readonly HistoryItem[] = []): HistoryBackend {
  const map = new Map(initial.map((i) => [historyKey(i), structuredClone(i)]))
  return {
    all: async () => [...map.values()].map((i) => structuredClone(i)),
    put: async (item) => {
      map.set(historyKey(item), structuredClone(item))
    },
    delete: async (key) => {
      map.delete(key)
    },
  }
}

/** Now, as the history stores its times (`createdAt`, `checkedAt`). */
export function historyTime(): string {
  return new Date().toISOString()
}
