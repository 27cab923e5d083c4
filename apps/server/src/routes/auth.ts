/**
 * The login routes `/auth/login`, `/auth/callback`, `/auth/logout` and `/auth/session` (spec:
 * Login routes), mounted only when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set.
 * May touch: nothing directly; through auth/ and access/api-tokens.ts.
 */
import {
  CLI_CALLBACK_PARAM,
  CLI_TOKEN_PARAM,
  ERROR_MESSAGES,
  PKCE_COOKIE_MAX_AGE_SEC,
  PKCE_COOKIE_NAME,
  SESSION_COOKIE_NAME,
  isCliCallbackUrl,
  HEADERS,
} from '@fileshare/protocol'
import { Hono } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'

import type { AppEnv } from '../app-env.js'
import { readApiToken, readSession } from '../auth/creation-guard.js'
import { ADAPTERS, oidcClient } from '../auth/oidc-client.js'
import type { SessionKeys } from '../auth/session.js'
import type { Config } from '../config.js'
import { HttpError } from '../http-error.js'
import type { ApiTokens } from '../access/api-tokens.js'

/** The PKCE cookie goes only to the login routes; the session cookie to the whole service. */
const PKCE_COOKIE_PATH = '/auth'

/** Sessions are signed with `keys`, which the creation guard checks; `tokens` name API tokens. */
export function authRoutes(config: Config, keys: SessionKeys, tokens: ApiTokens): Hono<AppEnv> {
  const { oidcIssuer, oidcClientId, oidcClientSecret, oidcSessionSecret } = config
  if (!oidcIssuer || !oidcClientId || !oidcClientSecret || !oidcSessionSecret) {
    throw new Error('authRoutes needs OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and a secret')
  }
  const client = oidcClient({
    issuer: oidcIssuer,
    clientId: oidcClientId,
    clientSecret: oidcClientSecret,
    redirectUri: `${config.baseUrl}/auth/callback`,
  })
  const adapter = ADAPTERS[config.oidcProvider]
  // HttpOnly is the spec's; Secure follows BASE_URL; Lax lets the provider's redirect carry them.
  const cookie = (path: string, maxAge?: number): CookieOptions => ({
    httpOnly: true,
    secure: config.baseUrl.startsWith('https:'),
    sameSite: 'Lax',
    path,
    ...(maxAge === undefined ? {} : { maxAge }),
  })

  const app = new Hono<AppEnv>()
  app.use('*', async (c, next) => {
    await next()
    c.header(HEADERS.cacheControl, 'no-store')
  })

  app.get('/login', async (c) => {
    const cliCallback = c.req.query(CLI_CALLBACK_PARAM)
    if (cliCallback !== undefined && !isCliCallbackUrl(cliCallback)) {
      throw new HttpError(400, ERROR_MESSAGES.invalidCliCallback)
    }
    const request = await client.authorize()
    const pkce = await keys.signPkce({
      state: request.state,
      nonce: request.nonce,
      verifier: request.verifier,
      cliCallback: cliCallback ?? null,
    })
    setCookie(c, PKCE_COOKIE_NAME, pkce, cookie(PKCE_COOKIE_PATH, PKCE_COOKIE_MAX_AGE_SEC))
    return c.redirect(request.url.href, 302)
  })

  app.get('/callback', async (c) => {
    const token = getCookie(c, PKCE_COOKIE_NAME)
    // One login per cookie: it is spent whatever the outcome.
    deleteCookie(c, PKCE_COOKIE_NAME, cookie(PKCE_COOKIE_PATH))
    const pkce = token === undefined ? null : await keys.verifyPkce(token)
    const code = c.req.query('code')
    if (pkce === null || c.req.query('state') !== pkce.state || !code) {
      throw new HttpError(400, ERROR_MESSAGES.loginFailed)
    }
    const claims = await client.complete(code, pkce.verifier, pkce.nonce)
    const session = await keys.sign(adapter(claims))
    if (pkce.cliCallback !== null && isCliCallbackUrl(pkce.cliCallback)) {
      const target = new URL(pkce.cliCallback)
      target.searchParams.set(CLI_TOKEN_PARAM, session)
      return c.redirect(target.href, 302)
    }
    setCookie(c, SESSION_COOKIE_NAME, session, cookie('/', config.oidcSessionDurationSec))
    return c.redirect('/', 302)
  })

  app.get('/logout', (c) => {
    deleteCookie(c, SESSION_COOKIE_NAME, cookie('/'))
    const endpoint = client.endSessionEndpoint()
    if (endpoint === null) return c.redirect('/', 302)
    // RP-Initiated Logout 1.0 §2: client_id names the client; where to return is the provider's.
    const target = new URL(endpoint)
    target.searchParams.set('client_id', oidcClientId)
    return c.redirect(target.href, 302)
  })

  app.get('/session', async (c) => {
    const header = (name: string) => c.req.header(name)
    const user = (await readApiToken(tokens, header))?.user ?? (await readSession(keys, header))
    if (user === null) throw new HttpError(401, ERROR_MESSAGES.loginRequired)
    return c.json(user, 200)
  })

  return app
}
