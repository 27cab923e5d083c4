/**
 * How far a streamed upload session got (GET /api/upload/:id/status and
 * GET /api/request/:id/upload/:uid/status, docs/api.md), read from its row: the bytes the store
 * holds durably and, for chunks, the chunk due next. A provider of the status dispatcher, which
 * asks each provider in turn.
 * May touch: nothing directly; reads rows through streamed-session-records.ts.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { SessionStatusProvider } from './session-status.js'
import type { StreamedSessionRecords } from './streamed-session-records.js'
import type { UploadSessions } from './upload-sessions.js'
import { tokenMatches } from '../access/tokens.js'
import { decodeSpec } from './stored-contexts.js'

export function streamedSessionStatus(
  records: StreamedSessionRecords,
  sessions: Pick<UploadSessions, 'settled'>,
): SessionStatusProvider {
  return {
    async status(kind, id, credential) {
      // A connection that ended here a moment ago records where it got to: answer that point,
      // not the checkpoint before it, so a prompt resume sends nothing twice.
      await sessions.settled(id)
      const row = await records.find(id)
      if (!row || row.kind !== kind) return null
      if (kind === 'request' && row.requestId !== credential) return null
      // Compared with the stored hash in constant time; a wrong token changes nothing.
      if (kind === 'upload' && !tokenMatches(credential, decodeSpec(row.context).ownerTokenHash)) {
        throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
      }
      return {
        bytesWritten: row.bytesWritten,
        nextIndex: row.transport === 'chunks' ? row.nextIndex : null,
        declaredSize: row.declaredSize,
        transport: row.transport,
      }
    },
  }
}
