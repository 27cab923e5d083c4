/**
 * Records an upload session of this process from its start to its end through the session's own
 * end listener, so the upload services need no metrics code of their own.
 * May touch: the metrics registry (recorder.ts).
 */
import {
  recordUploadCompleted,
  recordUploadFailed,
  recordUploadResumed,
  recordUploadStarted,
  recording,
  type UploadTransport,
} from './recorder.js'

/** What the tracking reads of a session; the upload session layer's sessions have it. */
export interface TrackedSession {
  readonly declaredSize: number
  readonly bytesAccepted: number
  onEnd(listener: (outcome: 'committed' | 'aborted') => void): void
}

/** Counts the session as started or resumed, and as completed or failed when it ends. */
export function trackUploadSession(
  session: TrackedSession,
  transport: UploadTransport,
  intoRequest = false,
  start: 'started' | 'resumed' = 'started',
): void {
  if (!recording()) return
  if (start === 'started') recordUploadStarted(transport)
  else recordUploadResumed(transport)
  session.onEnd((outcome) => {
    if (outcome === 'committed') recordUploadCompleted(transport, session.declaredSize, intoRequest)
    else recordUploadFailed(transport, session.bytesAccepted)
  })
}
