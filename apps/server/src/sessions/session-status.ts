/**
 * How far an unfinished upload got, for a client that resumes it (docs/api.md, GET
 * /api/upload/:id/status and GET /api/request/:id/upload/:uid/status): one dispatcher over the
 * providers that keep sessions, each answering for its own sessions and null for the others.
 * May touch: nothing directly; through the status providers.
 */
import { ERROR_MESSAGES, type UploadStatusResponse } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import { requestTakedown } from '../requests/request-records.js'
import type { OpenChunkSession } from './stored-chunk-sessions.js'
import type { Tombstones } from '../records/tombstones.js'

export type SessionStatus = UploadStatusResponse

/** `upload`: a normal upload, credential its owner token; `request`: credential its request id. */
export type SessionKind = 'upload' | 'request'

export interface SessionStatusProvider {
  /**
   * The status of session `id`, or null when this provider has no such session; throws 401 for
   * a wrong owner token, compared in constant time against the stored hash.
   */
  status(
    kind: SessionKind,
    id: string,
    credential: string | undefined,
  ): Promise<SessionStatus | null>
}

export class SessionStatusService {
  constructor(
    private readonly providers: readonly SessionStatusProvider[],
    private readonly tombstones: Tombstones,
  ) {}

  /**
   * The first provider's answer; when none has the session, the 410 of a request the operator
   * took down (as on its other routes), else 404 `Upload not found`.
   */
  async status(
    kind: SessionKind,
    id: string,
    credential: string | undefined,
  ): Promise<SessionStatus> {
    for (const provider of this.providers) {
      const status = await provider.status(kind, id, credential)
      if (status) return status
    }
    const takedown =
      kind === 'request' && credential !== undefined
        ? await requestTakedown(this.tombstones, credential)
        : undefined
    throw takedown ?? new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  }
}

/** A stored chunk session's status: durable is recorded, contiguous from chunk 0. */
export function storedSessionStatus(open: OpenChunkSession): SessionStatus {
  return {
    bytesWritten: open.bytesWritten,
    nextIndex: open.nextIndex,
    declaredSize: open.declaredSize,
    transport: 'chunks',
  }
}
