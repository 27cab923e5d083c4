/**
 * Records an upload session of this process from its start to its end through the session's own
 * end listener, so the upload services need no metrics code of their own.
 */
import type { UploadSession } from '../services/upload-sessions.js'
import {
  recordUploadCompleted,
  recordUploadFailed,
  recordUploadStarted,
  recording,
  type UploadTransport,
} from './recorder.js'

/** Counts the session as started, and as completed or failed with its bytes when it ends. */
export function trackUploadSession(
  session: UploadSession<unknown>,
  transport: UploadTransport,
  intoRequest = false,
): void {
  if (!recording()) return
  recordUploadStarted(transport)
  session.onEnd((outcome) => {
    if (outcome === 'committed') recordUploadCompleted(transport, session.declaredSize, intoRequest)
    else recordUploadFailed(transport, session.bytesAccepted)
  })
}
