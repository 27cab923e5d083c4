/**
 * The optional login's parts, loaded only when login is configured: a server without login never
 * loads jose and arctic (about 14 MB of memory and 160 ms at start).
 * May touch: nothing directly; through routes/auth.ts, routes/tokens.ts and access/api-tokens.ts.
 */
import { loginEnabled, type Config } from '../config.js'
import type { ApiTokens } from '../access/api-tokens.js'

/** The session keys (for the login routes and the creation guard), `/auth` and token routes. */
export async function loadLogin(config: Config, tokens: ApiTokens) {
  // loadConfig refuses login without a session secret; the second test narrows the type.
  if (!loginEnabled(config) || config.oidcSessionSecret === null) return null
  const [{ sessionKeys }, { authRoutes }, { tokenRoutes }] = await Promise.all([
    import('./session.js'),
    import('../routes/auth.js'),
    import('../routes/tokens.js'),
  ])
  const keys = sessionKeys(config.oidcSessionSecret, config.oidcSessionDurationSec)
  // Tokens stand in for the login on creation; where nothing needs the login they serve nothing.
  const protects = config.oidcProtectFiles || config.oidcProtectNotes || config.oidcProtectRequests
  return {
    keys,
    routes: authRoutes(config, keys, tokens),
    tokenRoutes: protects ? tokenRoutes(keys, tokens) : undefined,
  }
}
