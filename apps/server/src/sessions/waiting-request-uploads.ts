/**
 * Ends the uploads into a request that is going away (its owner deleted it, or the operator took
 * it down) which wait for a resume: streamed sessions no instance holds and chunked sessions kept
 * in the database, with their rows, quota holds and bytes. Without this they would live on until
 * they idle out.
 * May touch: nothing directly; through the session layer.
 */
import type { ChunkSessions } from './chunk-sessions.js'
import type { UploadSessions } from './upload-sessions.js'

export interface WaitingUploadSessions {
  sessions: UploadSessions
  /** Chunked sessions in the database (PostgreSQL); undefined where they live in memory. */
  chunkSessions: ChunkSessions
}

export async function endWaitingRequestUploads(
  deps: WaitingUploadSessions,
  requestId: string,
): Promise<void> {
  await deps.chunkSessions.removeOfRequest(requestId)
  await deps.sessions.endDormantOfRequest(requestId)
}
