/**
 * The personal API token routes (docs/api.md, API tokens): `GET /tokens`, `POST /tokens`,
 * `DELETE /tokens/:id`. They take the login session only, so a token cannot mint more.
 * May touch: nothing directly; through access/api-tokens.ts.
 */
import {
  API_TOKEN_BODY_MAX_BYTES,
  API_TOKEN_MESSAGES,
  ERROR_MESSAGES,
  isUuid,
} from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { readSession } from '../auth/creation-guard.js'
import type { SessionKeys } from '../auth/session.js'
import { HttpError } from '../http-error.js'
import type { ApiTokens } from '../access/api-tokens.js'
import { readJson } from './body.js'

export function tokenRoutes(keys: SessionKeys, tokens: ApiTokens): Hono<AppEnv> {
  const app = new Hono<AppEnv>()

  /** The signed-in user's subject; 401 before anything else is read. */
  const subjectOf = async (c: Context<AppEnv>): Promise<string> => {
    const user = await readSession(keys, (name) => c.req.header(name))
    if (user === null) throw new HttpError(401, ERROR_MESSAGES.loginRequired)
    return user.sub
  }

  app.get('/tokens', async (c) => c.json({ tokens: await tokens.list(await subjectOf(c)) }, 200))

  app.post('/tokens', async (c) => {
    const subject = await subjectOf(c)
    const body = await readJson(c, API_TOKEN_BODY_MAX_BYTES, ERROR_MESSAGES.requestBodyTooLarge)
    return c.json(await tokens.create(subject, body), 201)
  })

  app.delete('/tokens/:id', async (c) => {
    const subject = await subjectOf(c)
    const id = c.req.param('id')
    if (!isUuid(id)) throw new HttpError(404, API_TOKEN_MESSAGES.tokenNotFound)
    await tokens.revoke(subject, id)
    return c.json({ ok: true }, 200)
  })

  return app
}
