/**
 * The optional login's parts, loaded only when login is configured: a server without login never
 * loads jose and arctic (about 14 MB of memory and 160 ms at start).
 */
import type { Hono } from 'hono'

import type { AppEnv } from '../app-env.js'
import { loginEnabled, type Config } from '../config.js'
import type { SessionKeys } from './session.js'

export interface Login {
  /** Sign and check session tokens: for the login routes and the creation guard alike. */
  keys: SessionKeys
  /** The `/auth` routes. */
  routes: Hono<AppEnv>
}

/** The login of `config`, or null when login is off. */
export async function loadLogin(config: Config): Promise<Login | null> {
  // loadConfig refuses login without a session secret; the second test narrows the type.
  if (!loginEnabled(config) || config.oidcSessionSecret === null) return null
  const [{ sessionKeys }, { authRoutes }] = await Promise.all([
    import('./session.js'),
    import('../routes/auth.js'),
  ])
  const keys = sessionKeys(config.oidcSessionSecret, config.oidcSessionDurationSec)
  return { keys, routes: authRoutes(config, keys) }
}
