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

/** What a save takes from the download: its plaintext (or where it went instead) and size. */
export interface SavedDownload {
  /** The plaintext; absent when the worker sent it straight to the target's `sink`. */
  stream?: ReadableStream<Uint8Array> | undefined
  /** Resolves when all of the plaintext is read; rejects with its error (worker/client.ts). */
  finished: Promise<void>
  plainSize: number
}

export interface SaveTarget {
  method: SaveMethod
  /**
   * Where the download's plaintext is to go straight from the worker (the service worker's end
   * of a channel), when the target takes it that way; to be passed to the download call.
   */
  sink?: MessagePort
  /** Takes the download; resolves when all of it is saved, rejects with its error. */
  save(download: SavedDownload): Promise<void>
}

function streamOf(download: SavedDownload): ReadableStream<Uint8Array> {
  if (!download.stream) throw new Error('The download went elsewhere')
  return download.stream
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
      save: async (download) => {
        await streamOf(download).pipeTo(writable)
        await download.finished
      },
    }
  }
  if (method === 'service-worker') {
    const worker = await ensureServiceWorker()
    if (worker) {
      // The worker pumps the plaintext into one end, the service worker reads the other: the
      // bytes cross one thread boundary, by transfer, and never pass through the page.
      const channel = new MessageChannel()
      return {
        method,
        sink: channel.port2,
        save: (download) =>
          saveWithServiceWorker(worker, channel.port1, info, download.plainSize, download.finished),
      }
    }
  }
  return {
    method: 'blob',
    save: async (download) => {
      const stream = streamOf(download)
      if (download.plainSize > BLOB_SAVE_LIMIT) {
        await stream.cancel('too large')
        throw new RangeError(`Too large to save in memory: ${download.plainSize} bytes`)
      }
      await saveAsBlob(stream, info.name, info.type)
      await download.finished
    },
  }
}

/**
 * The whole save of one download: where to (first, inside the click), then the download itself
 * (which counts it; `start` passes `sink` on to the download call), then the bytes to disk. Call
 * it directly from the click handler.
 */
export async function saveDownload(
  method: SaveMethod,
  info: SaveInfo,
  start: (sink: MessagePort | undefined) => Promise<SavedDownload>,
): Promise<void> {
  const target = await openSaveTarget(method, info)
  const download = await start(target.sink)
  await target.save(download)
}
