/**
 * The normal upload socket `/api/upload/ws` (spec: WebSocket /api/upload/ws): `init` declares what
 * `POST /api/upload/init` does; `finalize` needs the owner token `init` declared.
 * May touch: nothing directly; through UploadsService and the session layer.
 */
import type { IncomingMessage } from 'node:http'

import { ERROR_MESSAGES, isUuid } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { FileUploadContext, UploadsService } from '../uploads/uploads.js'
import type { UploadSession } from '../sessions/upload-session.js'
import { parseResumable } from '../validation.js'
import {
  resumeOffset,
  type ControlFrame,
  type OpenedUpload,
  type UploadSocketRoute,
} from './upload-handler.js'

export interface FileUploadRouteDeps {
  uploads: UploadsService
  ipOf(request: IncomingMessage): string
  requireLogin(request: IncomingMessage): Promise<void>
}

export function fileUploadRoute(deps: FileUploadRouteDeps): UploadSocketRoute {
  const { uploads } = deps
  const opened = (
    session: UploadSession<FileUploadContext>,
    ownerToken: string | undefined,
  ): OpenedUpload => ({
    session,
    async finalize() {
      const id = await uploads.finalize(session, ownerToken)
      return { id, url: uploads.shareUrl(id) }
    },
    revoke: (id) => uploads.delete(id, ownerToken),
  })
  const handler = {
    async init(frame: ControlFrame, request: IncomingMessage): Promise<OpenedUpload> {
      await deps.requireLogin(request)
      const { spec, ownerToken } = uploads.declaredInFrame(frame.headers)
      const resumable = parseResumable(frame.resumable, 'frame')
      return opened(await uploads.begin(spec, deps.ipOf(request), 'ws', resumable), ownerToken)
    },
    /** `{ type: "resume", id, ownerToken, offset }`: the owner token is the credential. */
    async resume(frame: ControlFrame): Promise<OpenedUpload> {
      const { id, ownerToken } = frame
      const offset = resumeOffset(frame)
      if (!isUuid(id)) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
      const token = typeof ownerToken === 'string' ? ownerToken : undefined
      return opened(await uploads.resume(id, token, offset), token)
    },
  }
  return (pathname) => (pathname === '/api/upload/ws' ? handler : undefined)
}
