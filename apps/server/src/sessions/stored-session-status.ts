/**
 * The status provider of chunked sessions kept in the database (stored-chunk-sessions.ts).
 * May touch: nothing directly; through uploads/ and requests/.
 */
import type { RequestsService } from '../requests/requests.js'
import type { SessionStatusProvider } from './session-status.js'
import type { UploadsService } from '../uploads/uploads.js'

export function storedSessionStatusProvider(
  uploads: UploadsService,
  requests: RequestsService,
): SessionStatusProvider {
  return {
    status: (kind, id, credential) =>
      kind === 'upload'
        ? uploads.storedStatus(id, credential)
        : requests.storedStatus(credential ?? '', id),
  }
}
