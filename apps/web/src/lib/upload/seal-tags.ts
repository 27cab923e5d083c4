/**
 * The record tags of the page's unfinished uploads (docs/crypto.md, "Resuming"), in the origin's
 * IndexedDB beside the state localStorage keeps (docs/web.md, "Resuming uploads"): the worker that
 * seals the records writes each tag, in a committed transaction, before its record leaves; a
 * resume after a reload reads them to prove the picked files are the bytes sealed before; the
 * page drops them when it forgets the upload. A browser without IndexedDB keeps none, and its
 * kept uploads start afresh after a reload.
 */
import { RECORD_TAG_SIZE, type SealKeeper } from '@fileshare/protocol'

import { openAppDatabase, requestResult, SEAL_TAGS_STORE as STORE } from '../app-database'

let opened: Promise<IDBDatabase | null> | undefined

/** The database, or null where this context has no IndexedDB (or may not use it). */
function database(): Promise<IDBDatabase | null> {
  opened ??= new Promise<IDBDatabase | null>((resolve) => {
    let request: IDBOpenDBRequest
    try {
      if (typeof indexedDB === 'undefined') return resolve(null)
      request = openAppDatabase(indexedDB)
    } catch {
      return resolve(null)
    }
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => resolve(null)
    request.onblocked = () => resolve(null)
  })
  return opened
}

function settled(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve()
    transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB failed'))
    transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB aborted'))
  })
}

/** Every key of upload `id`: [id, index of its first record]. */
function rangeOf(id: string): IDBKeyRange {
  return IDBKeyRange.bound([id, 0], [id, Number.MAX_SAFE_INTEGER])
}

/** Keeps the tags of upload `id` as they are sealed, each write committed before it resolves. */
export function sealTagsKeeper(id: string): SealKeeper {
  return async (index, tags) => {
    const db = await database()
    if (!db) return
    const transaction = db.transaction(STORE, 'readwrite', { durability: 'strict' })
    transaction.objectStore(STORE).put(tags, [id, index])
    await settled(transaction)
  }
}

/**
 * The tags kept for upload `id`, from record 0; undefined when none were kept or they do not run
 * on without a gap (then nothing proves the files, and the upload starts afresh).
 */
export async function readSealTags(id: string): Promise<Uint8Array | undefined> {
  const db = await database()
  if (!db) return undefined
  const store = db.transaction(STORE, 'readonly').objectStore(STORE)
  const [keys, values] = await Promise.all([
    requestResult(store.getAllKeys(rangeOf(id))),
    requestResult(store.getAll(rangeOf(id)) as IDBRequest<Uint8Array[]>),
  ])
  if (keys.length === 0) return undefined
  const length = values.reduce((sum, tags) => sum + tags.length, 0)
  const all = new Uint8Array(length)
  let at = 0
  for (let i = 0; i < keys.length; i++) {
    const index = (keys[i] as [string, number])[1]
    if (index * RECORD_TAG_SIZE !== at) return undefined
    all.set(values[i]!, at)
    at += values[i]!.length
  }
  return all
}

/** Drops the tags of upload `id` (it ended, or was given up). */
export async function dropSealTags(id: string): Promise<void> {
  const db = await database()
  if (!db) return
  const transaction = db.transaction(STORE, 'readwrite')
  transaction.objectStore(STORE).delete(rangeOf(id))
  await settled(transaction)
}
