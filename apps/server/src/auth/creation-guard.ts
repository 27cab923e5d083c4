/**
 * Who may create content (spec: Authentication, Optional login), for the HTTP routes and upload
 * sockets alike: a service left out of ENABLED_SERVICES accepts nothing new (403), and with
 * OIDC_PROTECT_* a creation needs a session, from the cookie or `Authorization: Bearer` (401
 * otherwise). A Bearer value beginning `fst_` (never a JWT) is a personal API token instead: it
 * passes for the services in its scopes (403 for others) until it expires or is revoked (401).
 * May touch: nothing directly; API tokens through access/api-tokens.ts.
 */
import {
  API_TOKEN_MESSAGES,
  ERROR_MESSAGES,
  SESSION_COOKIE_NAME,
  isApiToken,
  type ApiTokenScope,
  type SessionResponse,
  RECEIVED_HEADERS,
} from '@fileshare/protocol'
import { parse } from 'hono/utils/cookie'

import type { Config, ServiceName } from '../config.js'
import { HttpError } from '../http-error.js'
import type { ApiTokens } from '../access/api-tokens.js'
import type { SessionKeys } from './session.js'

/** Reads a request header by lower-case name, whatever the transport. */
export type HeaderReader = (name: string) => string | undefined

/**
 * The logged-in creator when the service needs a login, else null (the daily request limit then
 * counts per IP), or 403 or 401; with `identify`, the caller's login on any service.
 */
export type CreationGuard = (
  service: ServiceName,
  header: HeaderReader,
  options?: { identify?: boolean },
) => Promise<SessionResponse | null>

/** Each service's 403 while left out of ENABLED_SERVICES, and the scope an API token needs. */
const SERVICES: Record<ServiceName, { disabled: string; scope: ApiTokenScope }> = {
  file: { disabled: ERROR_MESSAGES.fileUploadsDisabled, scope: 'files' },
  note: { disabled: ERROR_MESSAGES.notesDisabled, scope: 'notes' },
  request: { disabled: ERROR_MESSAGES.fileRequestsDisabled, scope: 'requests' },
}

const BEARER = /^Bearer\s+(\S*)\s*$/i

/** The value of an `Authorization: Bearer` header, or undefined when there is none. */
function bearerValue(header: HeaderReader): string | undefined {
  const bearer = BEARER.exec(header(RECEIVED_HEADERS.authorization) ?? '')
  return bearer ? (bearer[1] ?? '') : undefined
}

/**
 * The session of a request, or null: a Bearer token when sent (an invalid one is not made good by
 * a cookie), else the session cookie. Other schemes are ignored, so HTTP Basic auth still works.
 */
export async function readSession(keys: SessionKeys, header: HeaderReader) {
  const bearer = bearerValue(header)
  if (bearer !== undefined) return keys.verify(bearer)
  const cookies = header('cookie')
  const token =
    cookies === undefined ? undefined : parse(cookies, SESSION_COOKIE_NAME)[SESSION_COOKIE_NAME]
  return token === undefined ? null : keys.verify(token)
}

/** The user an API token speaks for (name and email empty, tokens keep none), 401 if invalid. */
export async function readApiToken(tokens: ApiTokens, header: HeaderReader) {
  const bearer = bearerValue(header)
  if (bearer === undefined || !isApiToken(bearer)) return null
  const holder = await tokens.authenticate(bearer)
  return { user: { sub: holder.subject, name: '', email: '' }, scopes: holder.scopes }
}

/**
 * The guard of every creation route and upload socket. `keys` is null when login is off;
 * loadConfig refuses OIDC_PROTECT_* without login, so a protected service always has them.
 */
export function creationGuard(
  config: Config,
  keys: SessionKeys | null,
  tokens: ApiTokens,
): CreationGuard {
  const protect: Record<ServiceName, boolean> = {
    file: config.oidcProtectFiles,
    note: config.oidcProtectNotes,
    request: config.oidcProtectRequests,
  }
  return async (service, header, options = {}) => {
    if (!config.enabledServices.includes(service))
      throw new HttpError(403, SERVICES[service].disabled)
    if (!protect[service] && (options.identify !== true || keys === null)) return null
    if (keys === null) throw new HttpError(401, ERROR_MESSAGES.loginRequired)
    const token = await readApiToken(tokens, header)
    if (token !== null) {
      if (!token.scopes.includes(SERVICES[service].scope)) {
        throw new HttpError(403, API_TOKEN_MESSAGES.scopeMissing)
      }
      return token.user
    }
    const user = await readSession(keys, header)
    if (user === null && protect[service]) throw new HttpError(401, ERROR_MESSAGES.loginRequired)
    return user
  }
}
