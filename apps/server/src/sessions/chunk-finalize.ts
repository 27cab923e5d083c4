/**
 * The finalize of a chunked upload kept in the database, the same for a normal upload and one
 * into a request: on whichever instance the request reached, the session is claimed once, its
 * chunks joined into the blob, and the record written in the transaction that ends it.
 * May touch: the metrics registry; the rest through chunk-sessions.ts and the
 * record callback it is given.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import type { Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { recordUploadCompleted, recordUploadFailed } from '../metrics/recorder.js'
import type { BlobJanitor } from '../records/blob-janitor.js'
import type { ClaimedSession, ChunkSessions } from './chunk-sessions.js'

/**
 * Finalizes session `id` of `requestId` (null: a normal upload); `record` writes its record and
 * answers what the caller needs of it. 404 when the session is not open there. Every failure
 * counts as a failed chunked upload, and one after the join removes the blob too.
 */
export async function finalizeChunks<T>(
  deps: { stored: ChunkSessions; janitor: BlobJanitor },
  id: string,
  requestId: string | null,
  record: (tx: Executor, claimed: ClaimedSession) => Promise<T>,
): Promise<T> {
  const { stored, janitor } = deps
  const claimed = await stored.claim(id, requestId).catch((error: unknown) => {
    // Chunks missing at the claim end the session (chunk-sessions.ts).
    if (error instanceof HttpError) recordUploadFailed('chunks')
    throw error
  })
  if (!claimed) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  let result: T
  try {
    await stored.join(id, claimed)
  } catch (error) {
    recordUploadFailed('chunks')
    throw error
  }
  try {
    result = await stored.complete(id, (tx) => record(tx, claimed))
  } catch (error) {
    recordUploadFailed('chunks')
    await janitor.remove(id)
    throw error
  }
  recordUploadCompleted('chunks', claimed.declaredSize, requestId !== null)
  return result
}
