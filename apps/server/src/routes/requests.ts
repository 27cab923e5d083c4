/**
 * File request routes for senders and creators (spec: POST /api/request, GET /api/request/limit,
 * GET /api/request/:id, Uploading into a request), and the resume's upload status (docs/api.md):
 * thin adapters over RequestsService and the session status service.
 * May touch: nothing directly; through RequestsService.
 */
import {
  ERROR_MESSAGES,
  REQUEST_BODY_MAX_BYTES,
  REQUEST_FINALIZE_BODY_MAX_BYTES,
  RECEIVED_HEADERS,
} from '@fileshare/protocol'
import { Hono, type Context, type MiddlewareHandler } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { RequestsService } from '../requests/requests.js'
import type { SessionStatusService } from '../sessions/session-status.js'
import { parseResumable } from '../validation.js'
import { readJson, refuseFormPost } from './body.js'
import { receiveChunk } from './chunk.js'
import { requestId, requestUploadId } from './route-ids.js'

export interface RequestRouteDeps {
  requests: RequestsService
  /** Answers 403 on every route while file requests are disabled. */
  enabled: boolean
  ipOf: (c: Context<AppEnv>) => string
  /** The creation guard (403, 401); the caller's login `sub`, or null without one. */
  creator: (c: Context<AppEnv>) => Promise<string | null>
  /** The caller's login `sub` whether or not requests need one (401 for an invalid one). */
  login: (c: Context<AppEnv>) => Promise<string | null>
  sessionStatus: SessionStatusService
}

/** The 403 of every request and inbox route while `request` is not in ENABLED_SERVICES. */
export function requestsEnabled(enabled: boolean): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    if (!enabled) throw new HttpError(403, ERROR_MESSAGES.fileRequestsDisabled)
    await next()
  }
}

/** Routes mounted at `/api/request`. */
export function requestRoutes(deps: RequestRouteDeps): Hono<AppEnv> {
  const { requests } = deps
  const app = new Hono<AppEnv>()
  app.use('*', requestsEnabled(deps.enabled))

  app.post('/', async (c) => {
    const user = await deps.creator(c)
    const body = await readJson(c, REQUEST_BODY_MAX_BYTES, ERROR_MESSAGES.requestBodyTooLarge)
    const client = { ip: deps.ipOf(c), user, login: () => deps.login(c) }
    return c.json(await requests.create(body, client), 201)
  })

  // Before `/:id`, which would otherwise take `limit` for an id.
  app.get('/limit', async (c) => {
    const user = await deps.creator(c)
    return c.json(await requests.limit({ ip: deps.ipOf(c), user }), 200)
  })

  app.get('/:id', async (c) =>
    c.json(await requests.read(requestId(c), c.req.header(RECEIVED_HEADERS.uploadToken)), 200),
  )

  app.post('/:id/upload/init', async (c) => {
    const id = requestId(c)
    refuseFormPost(c)
    const headers = c.req.header()
    const init = requests.declared({ headers })
    const resumable = parseResumable(headers[RECEIVED_HEADERS.resumable], 'header')
    return c.json({ id: await requests.beginChunkedUpload(id, init, deps.ipOf(c), resumable) }, 201)
  })

  app.post('/:id/upload/:uid/chunk', async (c) => {
    const id = requestId(c)
    return receiveChunk(c, async (index, n) =>
      requests.chunkSessions.admit(requestUploadId(c), index, n, requests.chunkScope(id)),
    )
  })

  app.post('/:id/upload/:uid/finalize', async (c) => {
    const id = requestId(c)
    const uid = c.req.param('uid')
    const session = await requests.chunked(id, uid)
    const limit = REQUEST_FINALIZE_BODY_MAX_BYTES
    const body = await readJson(c, limit, ERROR_MESSAGES.finalizeBodyTooLarge)
    return c.json({ id: await requests.finalize(session, body) }, 200)
  })

  app.get('/:id/upload/:uid/status', async (c) => {
    const id = requestId(c)
    return c.json(await deps.sessionStatus.status('request', requestUploadId(c), id), 200)
  })

  app.delete('/:id/upload/:uid', async (c) => {
    await requests.cancel(requestId(c), c.req.param('uid'))
    return c.json({ ok: true }, 200)
  })

  return app
}
