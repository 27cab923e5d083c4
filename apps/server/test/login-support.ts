/**
 * The client side of the login suites: a browser login through the test provider, and each
 * creation the login guards (upload init, note, file request, request limit, upload socket),
 * sent with whatever credential headers a test gives.
 */
import { PKCE_COOKIE_NAME, SESSION_COOKIE_NAME, createRequest } from '@fileshare/protocol'
import { Browser, freePort, location } from '@fileshare/testing'
import { createTestProvider, type TestProvider } from '@fileshare/testing/oidc-provider'
import { expect } from 'vitest'
import { WebSocket } from 'ws'

import { noteBody, uploadHeaders } from './harness.js'

const DAY = 86_400
const MiB = 1024 ** 2

/** A running test provider for a server to be started on a free loopback port. */
export async function startLoginProvider(): Promise<{
  port: number
  baseUrl: string
  provider: TestProvider
}> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const provider = await createTestProvider({ redirectUri: `${baseUrl}/auth/callback` })
  await provider.start()
  return { port, baseUrl, provider }
}

/** A server on loopback `port` with login against `idp`, every creation protected. */
export function loginEnv(idp: TestProvider, port: number, secret: string): Record<string, string> {
  return {
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_SESSION_SECRET: secret,
    OIDC_PROTECT_FILES: 'true',
    OIDC_PROTECT_NOTES: 'true',
    OIDC_PROTECT_REQUESTS: 'true',
  }
}

/** `Authorization: Bearer` with `token`. */
export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` }
}

/** The calls against the server at `base()` (read on each call: suites pick the port late). */
export function loginClient(base: () => string) {
  /** `GET /auth/login` and the provider's forms; answers the callback URL and the login's cookie. */
  async function startLogin(
    browser: Browser,
    query = '',
    login = 'ada',
  ): Promise<{ callback: string; pkce: string }> {
    const res = await browser.fetch(`${base()}/auth/login${query}`)
    expect(res.status).toBe(302)
    const pkce = browser.cookie(base(), PKCE_COOKIE_NAME)
    if (pkce === undefined) throw new Error('no PKCE cookie')
    const callback = await browser.follow(location(res, base()), `${base()}/auth/callback`, login)
    return { callback, pkce }
  }

  /** A whole browser login; answers the session JWT from the `fileshare-auth` cookie. */
  async function browserLogin(browser = new Browser(), login = 'ada'): Promise<string> {
    const { callback } = await startLogin(browser, '', login)
    const res = await browser.fetch(callback)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
    const session = browser.cookie(base(), SESSION_COOKIE_NAME)
    if (session === undefined) throw new Error('no session cookie')
    return session
  }

  async function sessionOf(headers: Record<string, string>): Promise<Response> {
    return fetch(`${base()}/auth/session`, { headers })
  }

  function uploadInit(headers: Record<string, string>): Promise<Response> {
    return fetch(`${base()}/api/upload/init`, {
      method: 'POST',
      headers: { ...uploadHeaders(16), ...headers },
    })
  }

  function createNote(headers: Record<string, string>): Promise<Response> {
    return fetch(`${base()}/api/note`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(noteBody({ maxViews: 1 })),
    })
  }

  async function createFileRequest(
    headers: Record<string, string>,
    extra: Record<string, unknown> = {},
  ): Promise<Response> {
    const { fields } = await createRequest({ message: 'Send me the files', acceptsNote: false })
    return fetch(`${base()}/api/request`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({
        ...fields,
        expireSec: DAY,
        maxUploads: 5,
        maxSize: 8 * MiB,
        downloads: 3,
        hasPassword: false,
        ...extra,
      }),
    })
  }

  async function requestLimit(headers: Record<string, string>): Promise<Response> {
    return fetch(`${base()}/api/request/limit`, { headers })
  }

  /** The first frame the upload socket answers to an `init` sent with `headers` on the upgrade. */
  async function socketInit(headers: Record<string, string>): Promise<Record<string, unknown>> {
    const ws = new WebSocket(`${base().replace(/^http/, 'ws')}/api/upload/ws`, { headers })
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve())
        ws.once('error', reject)
      })
      const frame = new Promise<Record<string, unknown>>((resolve) =>
        ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()) as never)),
      )
      const http = uploadHeaders(16)
      ws.send(
        JSON.stringify({
          type: 'init',
          headers: {
            authToken: http['X-Auth-Token'],
            ownerToken: http['X-Owner-Token'],
            salt: http['X-Salt'],
            maxDownloads: '1',
            expireSec: '86400',
            fileCount: '1',
            contentLength: '16',
            hasPassword: 'false',
          },
        }),
      )
      return await frame
    } finally {
      ws.terminate()
    }
  }

  return {
    startLogin,
    browserLogin,
    sessionOf,
    uploadInit,
    createNote,
    createFileRequest,
    requestLimit,
    socketInit,
  }
}
