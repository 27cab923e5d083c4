/**
 * Personal API tokens (this project's routes `/api/tokens`, docs/api.md): a signed-in user makes
 * tokens that scripts send as `Authorization: Bearer fst_…` in place of the session.
 */

/** Every API token begins with this, so a server tells it from a session JWT at a glance. */
export const API_TOKEN_PREFIX = 'fst_'

/** Random bytes after the prefix, base64url without padding (43 characters). */
export const API_TOKEN_BYTES = 32

/** What a token may create: uploads, notes, file requests. */
export const API_TOKEN_SCOPES = ['files', 'notes', 'requests'] as const

export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number]

/** Longest token name, in characters. */
export const API_TOKEN_NAME_MAX = 100

/** Longest lifetime a token may be given, in days. */
export const API_TOKEN_MAX_DAYS = 365

/** Most tokens one user may hold at once. */
export const API_TOKENS_PER_USER = 50

/** Largest body of `POST /api/tokens`, in bytes. */
export const API_TOKEN_BODY_MAX_BYTES = 1024

/** This project's messages of the token routes and of a token used for creation. */
export const API_TOKEN_MESSAGES = {
  /** A token used outside its scopes (403). */
  scopeMissing: 'API token not valid for this service',
  /** An unknown, revoked or expired token (401); the same text for all three. */
  invalidToken: 'Invalid or expired API token',
  tooManyTokens: 'Too many API tokens',
  tokenNotFound: 'API token not found',
} as const

/** Body of `POST /api/tokens`. */
export interface CreateApiTokenBody {
  name: string
  scopes: ApiTokenScope[]
  /** Lifetime in whole days, 1 to API_TOKEN_MAX_DAYS. */
  expiresInDays: number
}

/** One token as listed: never the token itself. Times are ISO 8601. */
export interface ApiTokenInfo {
  id: string
  name: string
  scopes: ApiTokenScope[]
  createdAt: string
  expiresAt: string
  /** Last use, to the minute; null before the first. */
  lastUsedAt: string | null
}

/** 201 of `POST /api/tokens`: the token, shown this once. */
export interface CreateApiTokenResponse extends ApiTokenInfo {
  token: string
}

/** 200 of `GET /api/tokens`: the caller's tokens, newest first. */
export interface ApiTokenListResponse {
  tokens: ApiTokenInfo[]
}

/** Whether a Bearer value is an API token (by its prefix) rather than a session JWT. */
export function isApiToken(value: string): boolean {
  return value.startsWith(API_TOKEN_PREFIX)
}
