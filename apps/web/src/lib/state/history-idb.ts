/** The history kept in IndexedDB: one object store keyed by `kind:id`. */
import { HISTORY_STORE as STORE, openAppDatabase, requestResult } from '../app-database'
import { historyKey, type HistoryBackend, type HistoryItem } from './history-store'

interface StoredItem {
  key: string
  item: HistoryItem
}

function openDb(factory: IDBFactory): Promise<IDBDatabase> {
  return requestResult(openAppDatabase(factory))
}

export function indexedDbBackend(factory: IDBFactory = indexedDB): HistoryBackend {
  let db: Promise<IDBDatabase> | undefined
  const store = async (mode: IDBTransactionMode) => {
    db ??= openDb(factory)
    return (await db).transaction(STORE, mode).objectStore(STORE)
  }
  return {
    async all() {
      const rows = (await requestResult((await store('readonly')).getAll())) as StoredItem[]
      return rows.map((row) => row.item)
    },
    async put(item) {
      const row: StoredItem = { key: historyKey(item), item }
      await requestResult((await store('readwrite')).put(row))
    },
    async delete(key) {
      await requestResult((await store('readwrite')).delete(key))
    },
  }
}
