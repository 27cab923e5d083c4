/** Optional OIDC login: cookies, query parameters, the session payload (spec: Optional login). */

/** HttpOnly cookie holding the session JWT of a browser. */
export const SESSION_COOKIE_NAME = 'fileshare-auth'

/** Signed short-lived HttpOnly cookie holding state, nonce, PKCE verifier and `cli_callback`. */
export const PKCE_COOKIE_NAME = 'fileshare-pkce'

/** Lifetime of the PKCE cookie: 5 minutes. */
export const PKCE_COOKIE_MAX_AGE_SEC = 5 * 60

/** Default of `OIDC_SESSION_DURATION`. */
export const DEFAULT_SESSION_DURATION_SEC = 86_400

/** Query parameter of `GET /auth/login`: where the command-line client waits for the token. */
export const CLI_CALLBACK_PARAM = 'cli_callback'

/** Query parameter carrying the session token in the redirect to `cli_callback`. */
export const CLI_TOKEN_PARAM = 'token'

/** The only beginnings a `cli_callback` may have (spec: Login routes). */
export const CLI_CALLBACK_PREFIXES = ['http://localhost', 'http://127.0.0.1'] as const

/** Adapter keys of `OIDC_PROVIDER`; `generic` is the default. */
export const OIDC_PROVIDERS = ['generic', 'pocketid', 'authentik', 'keycloak'] as const

export type OidcProvider = (typeof OIDC_PROVIDERS)[number]

/** Query of `GET /auth/login`. */
export interface LoginQuery {
  [CLI_CALLBACK_PARAM]?: string
}

/** 200 of `GET /auth/session`. */
export interface SessionResponse {
  sub: string
  name: string
  email: string
}

/** Payload of the HS256 session JWT; `iat` and `exp` are seconds since the epoch. */
export interface SessionPayload extends SessionResponse {
  iat: number
  exp: number
}
