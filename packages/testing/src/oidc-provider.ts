/**
 * A real OpenID provider for the login tests: oidc-provider v8 in the test process on a loopback
 * port, with one confidential client (client_secret_basic), PKCE S256 required and the
 * development login and consent forms. It can be stopped and started again on the same port to
 * play a provider that is down.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'

import { exportJWK, generateKeyPair } from 'jose'
import Provider, { type Configuration } from 'oidc-provider'

import { freePort } from './free-port.js'

export interface TestProviderOptions {
  /** The fileshare server's `{BASE_URL}/auth/callback`. */
  redirectUri: string
  /** Whether the metadata names an end-session endpoint (RP-Initiated Logout); default true. */
  endSession?: boolean
}

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Claims of the next logins besides `sub`, which is the name typed into the login form. */
  claims: Record<string, unknown>
  start(): Promise<void>
  stop(): Promise<void>
}

/** Creates the provider on a free port without starting it; call `start()` to answer. */
export async function createTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const clientId = 'fileshare'
  const clientSecret = randomBytes(24).toString('hex')
  const state: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    claims: { name: 'Ada Lovelace', email: 'ada@example.org' },
    start,
    stop,
  }

  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test', alg: 'RS256', use: 'sig' }
  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { methods: ['S256'], required: () => true },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: options.endSession ?? true },
    },
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email'],
    },
    // The login reads the identity from the ID token only, so the profile claims go into it.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...state.claims }),
    }),
    cookies: { keys: [randomBytes(16).toString('hex')] },
    jwks: { keys: [signingKey] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
  }
  const provider = new Provider(issuer, configuration)
  // Silences the provider's own logging of expected failures (a replayed code, for example).
  provider.on('server_error', () => undefined)
  let server: Server | undefined

  async function start(): Promise<void> {
    if (server) return
    const listening = createServer(provider.callback())
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(port, '127.0.0.1', () => resolve())
    })
    server = listening
  }

  async function stop(): Promise<void> {
    const running = server
    server = undefined
    if (!running) return
    running.closeAllConnections()
    await new Promise<void>((resolve) => running.close(() => resolve()))
  }

  return state
}
