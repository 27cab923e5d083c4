/**
 * How far an unfinished upload got, for a client that resumes it (docs/api.md, GET
 * /api/upload/:id/status and its request twin): the session's row, whichever writer keeps it.
 * A session that finalize claimed has no status.
 * May touch: nothing directly; reads rows through session-records.ts, and the takedown
 * tombstones of requests.
 */
import { ERROR_MESSAGES, type UploadStatusResponse } from '@fileshare/protocol'

import { tokenMatches } from '../access/tokens.js'
import { HttpError } from '../http-error.js'
import type { Tombstones } from '../records/tombstones.js'
import { requestTakedown } from '../requests/request-records.js'
import { decodeSpec } from './stored-contexts.js'
import type { SessionKindName, SessionRecords } from './session-records.js'
import type { UploadSessions } from './upload-sessions.js'

export class SessionStatusService {
  constructor(
    private readonly records: SessionRecords,
    private readonly sessions: Pick<UploadSessions, 'settled'>,
    private readonly tombstones: Tombstones,
  ) {}

  /** The status of session `id`; `credential` is an upload's owner token or the request's id. */
  async status(
    kind: SessionKindName,
    id: string,
    credential: string | undefined,
  ): Promise<UploadStatusResponse> {
    // A connection that ended here a moment ago records where it got to: answer that point,
    // not the checkpoint before it, so a prompt resume sends nothing twice.
    await this.sessions.settled(id)
    const row = await this.records.findOpen(id)
    const found =
      row !== undefined &&
      row.kind === kind &&
      (kind === 'upload' || (credential !== undefined && row.requestId === credential))
    if (found) {
      if (kind === 'upload' && !tokenMatches(credential, decodeSpec(row.context).ownerTokenHash)) {
        throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
      }
      return {
        bytesWritten: row.bytesWritten,
        nextIndex: row.transport === 'chunks' ? (row.nextIndex ?? 0) : null,
        declaredSize: row.declaredSize,
        transport: row.transport,
      }
    }
    const takedown =
      kind === 'request' && credential !== undefined
        ? await requestTakedown(this.tombstones, credential)
        : undefined
    throw takedown ?? new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  }
}
