/**
 * Saving a decrypted download to disk, streamed wherever the browser allows: through the
 * service worker first (the browser's own download, no prompt), else the File System Access API
 * (a save dialog), else an in-memory Blob below `BLOB_SAVE_LIMIT`. docs/web.md explains why.
 */
import { BLOB_SAVE_LIMIT, saveAsBlob } from './blob'
import { hasFileSystemAccess, pickSaveFile } from './file-system'
import { ensureServiceWorker, saveWithServiceWorker, type SaveInfo } from './service-worker'

export { BLOB_SAVE_LIMIT } from './blob'
export type { SaveInfo } from './service-worker'

export type SaveMethod = 'service-worker' | 'file-system' | 'blob'

/** The best method this browser offers (registers the service worker on first use). */
export async function detectSaveMethod(): Promise<SaveMethod> {
  if (await ensureServiceWorker()) return 'service-worker'
  if (hasFileSystemAccess()) return 'file-system'
  return 'blob'
}

/** A Blob save of `size` bytes is refused above the limit. */
export function blobTooLarge(method: SaveMethod, size: number): boolean {
  return method === 'blob' && size > BLOB_SAVE_LIMIT
}

export interface SaveTarget {
  method: SaveMethod
  /**
   * Takes the plaintext of `size` bytes; resolves when all of it is saved, rejects with the
   * stream's error (`finished` is the stream's own end, see worker/client.ts).
   */
  save(stream: ReadableStream<Uint8Array>, finished: Promise<void>, size: number): Promise<void>
}

/**
 * Prepares where the download goes. Call it first thing in the click handler: the File System
 * Access picker needs the click's user gesture, so nothing may be awaited before it. Rejects
 * with an AbortError when the user closes the picker.
 */
export async function openSaveTarget(method: SaveMethod, info: SaveInfo): Promise<SaveTarget> {
  if (method === 'file-system') {
    const writable = await pickSaveFile(info.name)
    return {
      method,
      save: async (stream, finished) => {
        await stream.pipeTo(writable)
        await finished
      },
    }
  }
  if (method === 'service-worker') {
    const worker = await ensureServiceWorker()
    if (worker) {
      return {
        method,
        save: (stream, finished, size) =>
          saveWithServiceWorker(worker, stream, info, size, finished),
      }
    }
  }
  return {
    method: 'blob',
    save: async (stream, finished, size) => {
      if (size > BLOB_SAVE_LIMIT) {
        await stream.cancel('too large')
        throw new RangeError(`Too large to save in memory: ${size} bytes`)
      }
      await saveAsBlob(stream, info.name, info.type)
      await finished
    },
  }
}

/**
 * The whole save of one download: where to (first, inside the click), then the download itself
 * (which counts it), then the bytes to disk. Call it directly from the click handler.
 */
export async function saveDownload(
  method: SaveMethod,
  info: SaveInfo,
  start: () => Promise<{
    stream: ReadableStream<Uint8Array>
    finished: Promise<void>
    plainSize: number
  }>,
): Promise<void> {
  const target = await openSaveTarget(method, info)
  const download = await start()
  await target.save(download.stream, download.finished, download.plainSize)
}
