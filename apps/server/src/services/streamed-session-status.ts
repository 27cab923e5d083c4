/**
 * How far a streamed upload session got (GET /api/upload/:id/status and
 * GET /api/request/:id/upload/:uid/status, docs/api.md), read from its row: the bytes the store
 * holds durably and, for chunks, the chunk due next. A provider of the status dispatcher, which
 * asks each provider in turn.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { StreamedSessionRecords, StreamedTransport } from './streamed-session-records.js'
import { tokenMatches } from './tokens.js'
import { decodeSpec } from './uploads.js'

/** The answer of the status routes. */
export interface SessionStatus {
  bytesWritten: number
  nextIndex: number | null
  declaredSize: number
  transport: StreamedTransport
}

export interface SessionStatusProvider {
  /**
   * The status of session `id` of `kind`, or null when this provider has no such session.
   * `credential`: the owner token of a normal upload (401 when it does not open it), the
   * request id of an upload into a request (the session must be one of that request's).
   */
  status(
    kind: 'upload' | 'request',
    id: string,
    credential: string | undefined,
  ): Promise<SessionStatus | null>
}

export function streamedSessionStatus(records: StreamedSessionRecords): SessionStatusProvider {
  return {
    async status(kind, id, credential) {
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
