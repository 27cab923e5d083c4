/**
 * Ends the uploads into a request that is going away (deleted or taken down) which wait for a
 * resume, so that they do not live on until they idle out.
 * May touch: nothing directly; through the session layer.
 */
import type { ChunkSessions } from './chunk-sessions.js'
import type { UploadSessions } from './upload-sessions.js'

export interface WaitingUploadSessions {
  sessions: UploadSessions
  chunkSessions: ChunkSessions
}

export async function endWaitingRequestUploads(
  deps: WaitingUploadSessions,
  requestId: string,
): Promise<void> {
  await deps.chunkSessions.removeOfRequest(requestId)
  await deps.sessions.endDormantOfRequest(requestId)
}
