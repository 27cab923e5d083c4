/**
 * The finalize of a chunked upload, the same for a normal upload and one into a request: on
 * whichever instance the request reached, the session is claimed once, its chunks joined into the
 * blob, and the record written in the transaction that ends it.
 * May touch: the metrics registry; the rest through chunk-sessions.ts and its callbacks.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import type { Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { recordUploadCompleted, recordUploadFailed } from '../metrics/recorder.js'
import type { ChunkSessions } from './chunk-sessions.js'
import type { FinishingSession } from './finishing-session.js'

/**
 * Open session `id` of `requestId` (null: a normal upload), to finalize or cancel, its context
 * decoded by `decode`; undefined when no such session is open.
 */
export async function openChunked<C>(
  stored: ChunkSessions,
  id: string,
  requestId: string | null,
  decode: (context: string) => C,
): Promise<FinishingSession<C> | undefined> {
  const open = await stored.find(id, requestId)
  if (!open) return undefined
  return {
    id,
    context: decode(open.context),
    finish: (record, discard) => finalizeChunks(stored, id, requestId, record, discard),
    abort: () => stored.remove([id]),
  }
}

/**
 * Finalizes session `id` of `requestId`: 404 when it is no longer open there (another finalize
 * claimed it). Every failure that ends the session counts as a failed chunked upload, and one
 * after the join calls `discard` too.
 */
async function finalizeChunks<T>(
  stored: ChunkSessions,
  id: string,
  requestId: string | null,
  record: (tx: Executor) => Promise<T>,
  discard: () => Promise<unknown>,
): Promise<T> {
  const claimed = await stored.claim(id, requestId).catch((error: unknown) => {
    // Chunks missing at the claim end the session (chunk-sessions.ts).
    if (error instanceof HttpError) recordUploadFailed('chunks')
    throw error
  })
  if (!claimed) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  let result: T
  try {
    await stored.join(id, claimed)
    result = await stored.complete(id, record).catch(async (error: unknown) => {
      await discard()
      throw error
    })
  } catch (error) {
    recordUploadFailed('chunks')
    throw error
  }
  recordUploadCompleted('chunks', claimed.declaredSize, requestId !== null)
  return result
}
