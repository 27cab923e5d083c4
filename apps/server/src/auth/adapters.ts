/**
 * Identity mapping per OIDC_PROVIDER (spec: Optional login, adapters table): each adapter turns
 * the verified ID-token claims into the session's `sub`, `name` and `email`.
 * May touch: nothing (pure).
 */
import type { SessionResponse } from '@fileshare/protocol'

import type { OidcProviderKey } from '../config.js'

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
