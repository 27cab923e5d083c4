/**
 * Upload routes (spec: POST /api/upload, /api/upload/init, /api/upload/:id/chunk,
 * /api/upload/:id/finalize, DELETE /api/upload/:id), and the resume's GET /api/upload/:id/status
 * (docs/api.md): thin adapters over UploadsService and the session status service.
 * May touch: nothing directly; through UploadsService and the session layer.
 */
import { HEADERS, RECEIVED_HEADERS } from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import type { SessionStatusService } from '../sessions/session-status.js'
import type { UploadsService } from '../uploads/uploads.js'
import { parseResumable } from '../validation.js'
import { closing, refuseFormPost } from './body.js'
import { receiveChunk } from './chunk.js'
import { uploadId } from './route-ids.js'

export interface UploadRouteDeps {
  uploads: UploadsService
  ipOf: (c: Context<AppEnv>) => string
  /** Throws 401 when creation needs a login and the caller has none. */
  requireLogin: (c: Context<AppEnv>) => Promise<void>
  sessionStatus: SessionStatusService
}

function connectionGone(c: Context<AppEnv>): boolean {
  const { outgoing } = c.env
  return outgoing.destroyed || outgoing.socket === null || outgoing.socket.destroyed
}

export function uploadRoutes(deps: UploadRouteDeps): Hono<AppEnv> {
  const { uploads } = deps
  const app = new Hono<AppEnv>()

  app.post('/upload', async (c) => {
    // Every refusal before the body is read closes the connection instead of reading it.
    let session
    try {
      await deps.requireLogin(c)
      const { spec } = uploads.declaredInHeaders(c.req.header(), RECEIVED_HEADERS.contentLength)
      session = await uploads.begin(spec, deps.ipOf(c), 'single')
    } catch (error) {
      throw closing(c, error)
    }
    try {
      for await (const chunk of c.env.incoming) await session.append(chunk as Buffer)
    } catch (error) {
      await session.abort()
      throw closing(c, error)
    }
    // Bytes past Content-Length make Node drop the connection as a malformed next request: the
    // answer could not reach the client, so the upload must not stay behind without its owner.
    if (connectionGone(c)) {
      await session.abort()
      return c.body(null, 400)
    }
    const ownerToken = c.req.header(RECEIVED_HEADERS.ownerToken)
    const id = await uploads.finalize(session, ownerToken)
    if (connectionGone(c)) {
      await uploads.delete(id, ownerToken)
      return c.body(null, 400)
    }
    return c.json({ id, url: uploads.shareUrl(id) }, 200)
  })

  app.post('/upload/init', async (c) => {
    await deps.requireLogin(c)
    refuseFormPost(c)
    const headers = c.req.header()
    const { spec } = uploads.declaredInHeaders(headers, RECEIVED_HEADERS.declaredContentLength)
    const resumable = parseResumable(headers[RECEIVED_HEADERS.resumable], 'header')
    const id = await uploads.beginChunked(spec, deps.ipOf(c), resumable)
    return c.json({ id }, 201)
  })

  app.post('/upload/:id/chunk', async (c) =>
    receiveChunk(c, (index, n) =>
      uploads.chunkSessions.admit(uploadId(c), index, n, uploads.chunkScope),
    ),
  )

  app.post('/upload/:id/finalize', async (c) => {
    const id = uploadId(c)
    refuseFormPost(c)
    const session = await uploads.chunked(id)
    const finalized = await uploads.finalize(session, c.req.header(RECEIVED_HEADERS.ownerToken))
    return c.json({ id: finalized, url: uploads.shareUrl(finalized) }, 200)
  })

  app.get('/upload/:id/status', async (c) => {
    const owner = c.req.header(HEADERS.ownerToken)
    return c.json(await deps.sessionStatus.status('upload', uploadId(c), owner), 200)
  })

  app.delete('/upload/:id', async (c) => {
    await uploads.delete(uploadId(c), c.req.header(RECEIVED_HEADERS.ownerToken))
    return c.json({ ok: true }, 200)
  })

  return app
}
