/** The history kept in IndexedDB: one object store keyed by `kind:id`. */
import { HISTORY_STORE as STORE, openAppDatabase } from '../app-database'
import { historyKey, type HistoryBackend, type HistoryItem } from './history-store'

interface StoredItem {
  key: string
  item: HistoryItem
}

function promised<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
}

function openDb(factory: IDBFactory): Promise<IDBDatabase> {
  return promised(openAppDatabase(factory))
}

export function indexedDbBackend(factory: IDBFactory = indexedDB): HistoryBackend {
  let db: Promise<IDBDatabase> | undefined
  const store = async (mode: IDBTransactionMode) => {
    db ??= openDb(factory)
    return (await db).transaction(STORE, mode).objectStore(STORE)
  }
  return {
    async all() {
      const rows = (await promised((await store('readonly')).getAll())) as StoredItem[]
      return rows.map((row) => row.item)
    },
    async put(item) {
      const row: StoredItem = { key: historyKey(item), item }
      await promised((await store('readwrite')).put(row))
    },
    async delete(key) {
      await promised((await store('readwrite')).delete(key))
    },
  }
}
