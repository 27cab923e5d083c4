/**
 * ID-token verification and discovery of the login client against a stub provider whose token
 * endpoint answers whatever ID token a test signs (OpenID Connect Core 1.0 §3.1.3.7).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { HttpError } from '../http-error.js'
import { oidcClient, type OidcClient } from './oidc-client.js'

const CLIENT_ID = 'fileshare'
const NONCE = 'the-nonce'

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>

let server: Server
let issuer: string
let providerKey: KeyPair
let rogueKey: KeyPair
/** What the stub answers; tests change it. */
let stub: {
  issuerInDocument: string | null
  tokenStatus: number
  idToken: string
}

beforeAll(async () => {
  providerKey = await generateKeyPair('RS256')
  rogueKey = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(providerKey.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }
  server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body))
    }
    if (req.url === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: stub.issuerInDocument ?? issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        end_session_endpoint: `${issuer}/logout`,
      })
    }
    if (req.url === '/jwks') return json(200, { keys: [jwk] })
    if (req.url === '/token') {
      return stub.tokenStatus === 200
        ? json(200, { access_token: 'at', token_type: 'Bearer', id_token: stub.idToken })
        : json(stub.tokenStatus, { error: 'invalid_grant' })
    }
    json(404, {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

let client: OidcClient

beforeEach(() => {
  stub = { issuerInDocument: null, tokenStatus: 200, idToken: '' }
  client = oidcClient({
    issuer,
    clientId: CLIENT_ID,
    clientSecret: 'secret',
    redirectUri: 'http://127.0.0.1:1/auth/callback',
  })
})

async function idToken(changes: JWTPayload = {}, key: KeyPair = providerKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({
    iss: issuer,
    aud: CLIENT_ID,
    sub: 'ada',
    nonce: NONCE,
    iat: now,
    exp: now + 300,
    name: 'Ada',
    ...changes,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .sign(key.privateKey)
}

async function failure(run: () => Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(err instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(err)}`)
  return { status: err.status, message: err.message }
}

const LOGIN_FAILED = { status: 400, message: 'Login failed' }

describe('oidcClient', () => {
  it('returns the claims of a valid ID token', async () => {
    stub.idToken = await idToken()
    await expect(client.complete('code', 'verifier', NONCE)).resolves.toMatchObject({
      sub: 'ada',
      name: 'Ada',
    })
  })

  // Security: each of these ID tokens must be refused, whatever the token endpoint says.
  it.each<[string, () => Promise<string>]>([
    ['another nonce', () => idToken({ nonce: 'replayed-nonce' })],
    ['no nonce', () => idToken({ nonce: undefined })],
    ['another audience', () => idToken({ aud: 'other-client' })],
    ['another issuer', () => idToken({ iss: 'http://evil.example' })],
    ['an expired token', () => idToken({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['a signature by another key', () => idToken({}, rogueKey)],
  ])('refuses an ID token with %s', async (_what, make) => {
    stub.idToken = await make()
    expect(await failure(() => client.complete('code', 'verifier', NONCE))).toEqual(LOGIN_FAILED)
  })

  it('answers 400 when the provider refuses the code', async () => {
    stub.tokenStatus = 400
    expect(await failure(() => client.complete('code', 'verifier', NONCE))).toEqual(LOGIN_FAILED)
  })

  // Security: a discovery document naming another issuer could point at anyone's keys.
  it('answers 503 when the discovery document names another issuer', async () => {
    stub.issuerInDocument = 'http://evil.example'
    expect(await failure(() => client.authorize())).toEqual({
      status: 503,
      message: 'Login provider unreachable',
    })
  })

  it('does not cache a failed discovery, and knows the end-session endpoint only once cached', async () => {
    stub.issuerInDocument = 'http://evil.example'
    await failure(() => client.authorize())
    expect(client.endSessionEndpoint()).toBeNull()
    stub.issuerInDocument = null
    const request = await client.authorize()
    expect(request.url.href.startsWith(`${issuer}/authorize?`)).toBe(true)
    expect(client.endSessionEndpoint()).toBe(`${issuer}/logout`)
  })
})
