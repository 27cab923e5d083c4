/**
 * The origin's one IndexedDB database and every object store in it: the history of what this
 * browser sent (state/history-idb.ts) and the record tags of unfinished uploads
 * (upload/seal-tags.ts). Opening it creates whichever store is missing, so each module finds its
 * own whichever opened the database first.
 */

export const APP_DATABASE = 'fileshare'
/** Version 1 held the history alone; 2 adds the record tags. */
export const APP_DATABASE_VERSION = 2
export const HISTORY_STORE = 'history'
export const SEAL_TAGS_STORE = 'sealTags'

/** Opens the database; the caller handles success and failure on the request it gets. */
export function openAppDatabase(factory: IDBFactory): IDBOpenDBRequest {
  const request = factory.open(APP_DATABASE, APP_DATABASE_VERSION)
  request.onupgradeneeded = () => {
    const db = request.result
    if (!db.objectStoreNames.contains(HISTORY_STORE)) {
      db.createObjectStore(HISTORY_STORE, { keyPath: 'key' })
    }
    if (!db.objectStoreNames.contains(SEAL_TAGS_STORE)) db.createObjectStore(SEAL_TAGS_STORE)
  }
  // A newer version opened in another tab: let it upgrade rather than block it.
  request.addEventListener('success', () => {
    request.result.onversionchange = () => request.result.close()
  })
  return request
}

/** The result of one IndexedDB request, or its error. */
export function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new Error('IndexedDB failed'))
  })
}
