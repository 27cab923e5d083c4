/**
 * The request upload socket `/api/request/:id/upload/ws` (spec: Uploading into a request): its
 * frames carry what the HTTP init and finalize do, and it must keep delivering or lose its slot.
 * May touch: nothing directly; through RequestsService and the session layer.
 */
import type { IncomingMessage } from 'node:http'

import { ERROR_MESSAGES, REQUEST_FINALIZE_BODY_MAX_BYTES } from '@fileshare/protocol'

import type { Config } from '../config.js'
import { HttpError } from '../http-error.js'
import type { RequestUploadContext } from '../requests/request-validation.js'
import type { RequestsService } from '../requests/requests.js'
import type { UploadSession } from '../sessions/upload-session.js'
import { parseResumable } from '../validation.js'
import {
  resumeOffset,
  type ControlFrame,
  type OpenedUpload,
  type UploadSocketRoute,
} from './upload-handler.js'

/** Lower-case UUIDs only, as everywhere else; any other path under the prefix is not found. */
const REQUEST_UPLOAD_PATH =
  /^\/api\/request\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/upload\/ws$/

export interface RequestUploadRouteDeps {
  config: Config
  requests: Pick<
    RequestsService,
    'declared' | 'beginUpload' | 'resumeUpload' | 'finalize' | 'revoke'
  >
  ipOf(request: IncomingMessage): string
}

export function requestUploadRoute(deps: RequestUploadRouteDeps): UploadSocketRoute {
  const { config, requests } = deps
  // A sender's upload is not a creation, so no login is asked for; the feature must be on.
  const requireEnabled = () => {
    if (!config.enabledServices.includes('request')) {
      throw new HttpError(403, ERROR_MESSAGES.fileRequestsDisabled)
    }
  }

  return (pathname) => {
    const requestId = REQUEST_UPLOAD_PATH.exec(pathname)?.[1]
    if (requestId === undefined) return undefined
    const opened = (session: UploadSession<RequestUploadContext>): OpenedUpload => ({
      session,
      // An invalid body fails the socket and frees the slot, unlike the HTTP route, which keeps
      // the session for a corrected body: on a socket every `error` frame ends it (spec: step 6).
      async finalize({ type: _type, ...body }) {
        return { id: await requests.finalize(session, body) }
      },
      revoke: (id) => requests.revoke(requestId, id, session.context.init.senderNote),
    })
    return {
      finalizeFrameMaxBytes: REQUEST_FINALIZE_BODY_MAX_BYTES,
      async init(frame: ControlFrame, request: IncomingMessage): Promise<OpenedUpload> {
        requireEnabled()
        const init = requests.declared({ frame: frame.request })
        const resumable = parseResumable(frame.resumable, 'frame')
        return opened(await requests.beginUpload(requestId, init, deps.ipOf(request), resumable))
      },
      /** `{ type: "resume", uploadId, offset }`: the upload's id under its request is its key. */
      async resume(frame: ControlFrame): Promise<OpenedUpload> {
        requireEnabled()
        const offset = resumeOffset(frame)
        const uploadId = typeof frame.uploadId === 'string' ? frame.uploadId : ''
        return opened(await requests.resumeUpload(requestId, uploadId, offset))
      },
    }
  }
}
