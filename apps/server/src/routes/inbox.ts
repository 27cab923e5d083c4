/**
 * The requester's inbox routes (spec: Inbox routes): listing, counted file downloads and the
 * management routes, thin adapters over InboxService, which also applies the lockout.
 * May touch: nothing directly; through InboxService.
 */
import { RECEIVED_HEADERS } from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import type { Logger } from '../logger.js'
import type { InboxService } from '../requests/inbox.js'
import { requestsEnabled } from './requests.js'
import { requestId } from './route-ids.js'
import { answerCounted } from './download.js'

export interface InboxRouteDeps {
  inbox: InboxService
  /** Answers 403 on every route while file requests are disabled. */
  enabled: boolean
  ipOf: (c: Context<AppEnv>) => string
  logger: Pick<Logger, 'error'>
}

/** Routes mounted at `/api/inbox`. */
export function inboxRoutes(deps: InboxRouteDeps): Hono<AppEnv> {
  const { inbox, ipOf } = deps
  const app = new Hono<AppEnv>()
  app.use('*', requestsEnabled(deps.enabled))

  const inboxToken = (c: Context<AppEnv>) => c.req.header(RECEIVED_HEADERS.inboxToken)
  const ownerToken = (c: Context<AppEnv>) => c.req.header(RECEIVED_HEADERS.inboxOwnerToken)

  app.get('/:id', async (c) => c.json(await inbox.read(requestId(c), inboxToken(c), ipOf(c)), 200))

  // Read grants as on GET /api/download/:id (docs/api.md, Read grants), under the inbox token.
  // The `:uid` goes as given: checked after the credential, a locked caller gets 429.
  app.get('/:id/file/:uid', async (c) =>
    answerCounted(c, deps.logger, {
      download: (withGrant, range) =>
        inbox.file(requestId(c), c.req.param('uid'), inboxToken(c), ipOf(c), withGrant, range),
      readGranted: (grant, range) =>
        inbox.readGranted(requestId(c), c.req.param('uid'), inboxToken(c), grant, range, ipOf(c)),
    }),
  )

  app.delete('/:id/file/:uid', async (c) => {
    await inbox.deleteFile(requestId(c), c.req.param('uid'), ownerToken(c), ipOf(c))
    return c.json({ ok: true }, 200)
  })

  app.post('/:id/close', async (c) => {
    await inbox.close(requestId(c), ownerToken(c), ipOf(c))
    return c.json({ ok: true }, 200)
  })

  app.delete('/:id', async (c) => {
    await inbox.deleteRequest(requestId(c), ownerToken(c), ipOf(c))
    return c.json({ ok: true }, 200)
  })

  return app
}
