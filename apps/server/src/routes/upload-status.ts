/**
 * How far an unfinished upload got, for a client that resumes it (docs/api.md: GET
 * /api/upload/:id/status, GET /api/request/:id/upload/:uid/status).
 * May touch: nothing directly; through the session status service.
 */
import { HEADERS } from '@fileshare/protocol'
import { Hono } from 'hono'

import type { AppEnv } from '../app-env.js'

import type { SessionStatusService } from '../sessions/session-status.js'
import { requestsEnabled } from './requests.js'
import { requestId, requestUploadId, uploadId } from './route-ids.js'

export interface UploadStatusRouteDeps {
  sessionStatus: SessionStatusService
  /** Whether file requests are on (the request route answers 403 otherwise). */
  requestsEnabled: boolean
}

/** Routes mounted at `/api`. */
export function uploadStatusRoutes(deps: UploadStatusRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()

  app.get('/upload/:id/status', async (c) => {
    const owner = c.req.header(HEADERS.ownerToken)
    return c.json(await deps.sessionStatus.status('upload', uploadId(c), owner), 200)
  })

  app.get('/request/:id/upload/:uid/status', requestsEnabled(deps.requestsEnabled), async (c) => {
    const id = requestId(c)
    return c.json(await deps.sessionStatus.status('request', requestUploadId(c), id), 200)
  })

  return app
}
