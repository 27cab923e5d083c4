/**
 * The relying party of the optional login (spec: Optional login 4 and 5): provider metadata found
 * by discovery on first use and cached for the process, authorization URLs with PKCE S256 and a
 * nonce through arctic, the code exchange, and ID-token verification with jose; then the identity
 * mapping per OIDC_PROVIDER (spec: Optional login, adapters table) from the verified claims to the
 * session's `sub`, `name` and `email`.
 * May touch: the network (the OIDC provider: discovery, code exchange, its keys).
 */
import { ERROR_MESSAGES, type SessionResponse } from '@fileshare/protocol'
import {
  ArcticFetchError,
  CodeChallengeMethod,
  OAuth2Client,
  generateCodeVerifier,
  generateState,
} from 'arctic'
import { createRemoteJWKSet, errors, jwtVerify } from 'jose'

import type { OidcProviderKey } from '../config.js'
import { HttpError } from '../http-error.js'

/** The longest wait for the provider on each call. */
const TIMEOUT_MS = 10_000

type ProviderMetadata = Awaited<ReturnType<typeof discover>>

export type OidcClient = ReturnType<typeof oidcClient>

const SCOPES = ['openid', 'profile', 'email']

export function oidcClient(options: {
  issuer: string
  clientId: string
  clientSecret: string
  redirectUri: string
}) {
  const oauth = new OAuth2Client(options.clientId, options.clientSecret, options.redirectUri)
  let cached: ProviderMetadata | undefined
  let pending: Promise<ProviderMetadata> | undefined

  // One discovery at a time; a failure is not cached, so a provider that comes up later is found.
  const metadata = async (): Promise<ProviderMetadata> => {
    if (cached) return cached
    pending ??= discover(options.issuer).finally(() => (pending = undefined))
    cached = await pending
    return cached
  }

  return {
    /** Starts a login; 503 when the provider cannot be reached. */
    async authorize() {
      const provider = await metadata()
      const state = generateState()
      const nonce = generateState()
      const verifier = generateCodeVerifier()
      const url = oauth.createAuthorizationURLWithPKCE(
        provider.authorizationEndpoint,
        state,
        CodeChallengeMethod.S256,
        verifier,
        SCOPES,
      )
      url.searchParams.set('nonce', nonce)
      return { url, state, nonce, verifier }
    },

    /** Exchanges the code and returns the verified ID-token claims; 400 or 503 on failure. */
    async complete(code: string, verifier: string, nonce: string): Promise<IdTokenClaims> {
      const provider = await metadata()
      let idToken: string
      try {
        const tokens = await oauth.validateAuthorizationCode(provider.tokenEndpoint, code, verifier)
        idToken = tokens.idToken()
      } catch (err) {
        if (err instanceof ArcticFetchError) throw unreachable(err)
        // A refused, replayed or expired code, or an answer without an ID token.
        throw new HttpError(400, ERROR_MESSAGES.loginFailed, { cause: err })
      }
      // OpenID Connect Core 1.0 §3.1.3.7: signature, `iss`, `aud`, `exp` and the login's `nonce`.
      try {
        const { payload } = await jwtVerify(idToken, provider.jwks, {
          issuer: provider.issuer,
          audience: options.clientId,
          requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
        })
        if (payload.nonce !== nonce || typeof payload.sub !== 'string' || payload.sub === '') {
          throw new HttpError(400, ERROR_MESSAGES.loginFailed)
        }
        return { ...payload, sub: payload.sub }
      } catch (err) {
        if (err instanceof HttpError) throw err
        if (err instanceof errors.JWKSTimeout || err instanceof TypeError) throw unreachable(err)
        if (err instanceof errors.JOSEError) {
          throw new HttpError(400, ERROR_MESSAGES.loginFailed, { cause: err })
        }
        throw err
      }
    },

    /** Only from metadata already cached (spec: Login routes). */
    endSessionEndpoint: () => cached?.endSessionEndpoint ?? null,
  }
}

/** OpenID Connect Discovery 1.0 §4: the issuer in the document must be the configured one. */
async function discover(issuer: string) {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
  let document: Record<string, unknown>
  try {
    const response = await fetch(url, {
      headers: { Accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    if (!response.ok) throw new Error(`discovery answered ${response.status}`)
    document = (await response.json()) as Record<string, unknown>
  } catch (err) {
    throw unreachable(err)
  }
  const field = (name: string): string => {
    const value = document[name]
    if (typeof value !== 'string' || value === '') {
      throw unreachable(new Error(`discovery document has no ${name}`))
    }
    return value
  }
  const discovered = field('issuer')
  if (discovered.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
    throw unreachable(new Error(`discovery names issuer ${discovered}, expected ${issuer}`))
  }
  const endSession = document.end_session_endpoint
  return {
    issuer: discovered,
    authorizationEndpoint: field('authorization_endpoint'),
    tokenEndpoint: field('token_endpoint'),
    endSessionEndpoint: typeof endSession === 'string' && endSession !== '' ? endSession : null,
    jwks: createRemoteJWKSet(new URL(field('jwks_uri')), { timeoutDuration: TIMEOUT_MS }),
  }
}

function unreachable(cause: unknown): HttpError {
  return new HttpError(503, ERROR_MESSAGES.providerUnreachable, { cause })
}

/** Claims of a verified ID token; only `sub` is sure to be there. */
export type IdTokenClaims = Record<string, unknown> & { sub: string }

export type ClaimAdapter = (claims: IdTokenClaims) => SessionResponse

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Standard `name` and `email` claims (OpenID Connect Core 1.0 §5.1); absent ones are empty. */
const standard: ClaimAdapter = (claims) => ({
  sub: claims.sub,
  name: text(claims.name) ?? '',
  email: text(claims.email) ?? '',
})

export const ADAPTERS: Record<OidcProviderKey, ClaimAdapter> = {
  generic: standard,
  pocketid: standard,
  // authentik always sends `name`; the adapter reads it and nothing else for the name.
  authentik: standard,
  // Keycloak leaves `name` out for users without first and last name; the login name stands in.
  keycloak: (claims) => ({
    ...standard(claims),
    name: text(claims.name) ?? text(claims.preferred_username) ?? '',
  }),
}
