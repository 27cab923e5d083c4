/**
 * Routes on stored uploads (spec: POST /api/meta/:id, GET /api/info/:id, GET /api/exists/:id,
 * GET /api/download/:id, POST /api/password/:id): thin adapters over UploadsService.
 * May touch: nothing directly; through UploadsService.
 */
import {
  ERROR_MESSAGES,
  HEADERS,
  isUuid,
  type PasswordCheckResponse,
  RECEIVED_HEADERS,
} from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import type { Logger } from '../logger.js'
import type { UploadsService } from '../uploads/uploads.js'
import { readJson } from './body.js'
import { answerCounted } from './download.js'
import { uploadId } from './route-ids.js'

export interface FileRouteDeps {
  uploads: UploadsService
  ipOf: (c: Context<AppEnv>) => string
  logger: Pick<Logger, 'error'>
}

/** Metadata is at most 75,000 bytes of ciphertext; its base64 JSON body fits well within this. */
const META_BODY_LIMIT = 128 * 1024

export function fileRoutes(deps: FileRouteDeps): Hono<AppEnv> {
  const { uploads } = deps
  const app = new Hono<AppEnv>()

  app.post('/meta/:id', async (c) => {
    const id = uploadId(c)
    const body = await readJson(c, META_BODY_LIMIT, ERROR_MESSAGES.invalidRequest)
    await uploads.saveMeta(id, c.req.header(RECEIVED_HEADERS.ownerToken), body)
    return c.json({ ok: true }, 200)
  })

  app.get('/info/:id', async (c) => c.json(await uploads.info(uploadId(c)), 200))

  app.get('/exists/:id', async (c) => {
    const id = c.req.param('id')
    return c.json({ exists: isUuid(id) && (await uploads.exists(id)) }, 200)
  })

  // A read grant (docs/api.md) is asked for with X-Read-Grant: request, and used by sending it.
  app.get('/download/:id', async (c) => {
    const auth = () => c.req.header(HEADERS.authToken)
    return answerCounted(c, deps.logger, {
      download: (withGrant, range) =>
        uploads.download(uploadId(c), auth(), deps.ipOf(c), withGrant, range),
      readGranted: (grant, range) =>
        uploads.readGranted(uploadId(c), auth(), grant, range, deps.ipOf(c)),
    })
  })

  app.post('/password/:id', async (c) => {
    const meta = await uploads.checkPassword(
      uploadId(c),
      c.req.header(RECEIVED_HEADERS.authToken),
      deps.ipOf(c),
    )
    return c.json({ ok: true, ...meta } satisfies PasswordCheckResponse, 200)
  })

  return app
}
