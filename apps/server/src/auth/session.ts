/**
 * The two signed tokens of the login (spec: Login user and session, Optional login): the HS256
 * session JWT signed with OIDC_SESSION_SECRET, and the 5-minute PKCE JWT carried by the
 * `fileshare-pkce` cookie, signed with its own key derived from the same secret.
 * May touch: nothing (pure).
 */
import { hkdfSync } from 'node:crypto'

import {
  PKCE_COOKIE_MAX_AGE_SEC,
  type SessionPayload,
  type SessionResponse,
} from '@fileshare/protocol'
import { SignJWT, errors, jwtVerify } from 'jose'

/** HKDF label of the PKCE cookie key, so a PKCE JWT can never pass as a session and back. */
export const PKCE_KEY_LABEL = 'fileshare pkce cookie v1'

/** What the login keeps between `GET /auth/login` and `GET /auth/callback`. */
export interface PkceState {
  state: string
  nonce: string
  verifier: string
  /** Where the command-line client waits for the token, when it started the login. */
  cliCallback: string | null
}

export type SessionKeys = ReturnType<typeof sessionKeys>

export function sessionKeys(secret: string, durationSec: number) {
  const sessionKey = new TextEncoder().encode(secret)
  const pkceKey = new Uint8Array(
    hkdfSync('sha256', sessionKey, new Uint8Array(), PKCE_KEY_LABEL, 32),
  )
  /** The payload of a valid token; null when it is malformed, tampered with or expired. */
  const payloadOf = async <T>(token: string, key: Uint8Array, requiredClaims: string[]) => {
    try {
      return (await jwtVerify<Partial<T>>(token, key, { algorithms: ['HS256'], requiredClaims }))
        .payload
    } catch (err) {
      // A token that fails verification is no credential; any other error is a bug.
      if (err instanceof errors.JOSEError) return null
      throw err
    }
  }

  const signed = (claims: object, lifetimeSec: number) =>
    new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(`${lifetimeSec}s`)

  return {
    // The payload is exactly the spec's: sub, name, email, iat, exp (no server-side state).
    sign: (user: SessionResponse) =>
      signed({ name: user.name, email: user.email, sub: user.sub }, durationSec).sign(sessionKey),

    async verify(token: string): Promise<SessionResponse | null> {
      const payload = await payloadOf<SessionPayload>(token, sessionKey, ['sub', 'iat', 'exp'])
      const { sub, name, email } = payload ?? {}
      if (typeof sub !== 'string' || typeof name !== 'string' || typeof email !== 'string') {
        return null
      }
      return { sub, name, email }
    },

    signPkce: (pkce: PkceState) => signed(pkce, PKCE_COOKIE_MAX_AGE_SEC).sign(pkceKey),

    async verifyPkce(token: string): Promise<PkceState | null> {
      const payload = await payloadOf<PkceState>(token, pkceKey, ['exp'])
      const { state, nonce, verifier, cliCallback } = payload ?? {}
      if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string') {
        return null
      }
      return { state, nonce, verifier, cliCallback: cliCallback ?? null }
    },
  }
}
