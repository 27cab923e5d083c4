/**
 * The optional OIDC login end to end over real HTTP against a real provider (oidc-provider on
 * loopback): the browser and command-line logins, the guard on every creation route, the claim
 * mapping of each adapter, and the failures the spec names (spec: Login routes, Optional login).
 */
import { hkdfSync } from 'node:crypto'

import { PKCE_COOKIE_NAME, SESSION_COOKIE_NAME, type SessionResponse } from '@fileshare/protocol'
import { Browser, location } from '@fileshare/testing'
import { createTestProvider, type TestProvider } from '@fileshare/testing/oidc-provider'
import { SignJWT } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import { PKCE_KEY_LABEL } from '../src/auth/session.js'
import { startTestServer, type TestServer } from './harness.js'
import { bearer, loginClient, loginEnv, startLoginProvider } from './login-support.js'

const SECRET = 'test-session-secret-of-32-chars!!'

let serverPort: number
let baseUrl: string
let provider: TestProvider
const running: Array<{ close(): Promise<void> }> = []

beforeAll(async () => {
  ;({ port: serverPort, baseUrl, provider } = await startLoginProvider())
})

afterEach(async () => {
  vi.useRealTimers()
  provider.claims = { name: 'Ada Lovelace', email: 'ada@example.org' }
  while (running.length > 0) await running.pop()?.close()
})

afterAll(async () => {
  await provider.stop()
})

/** The server with login against `idp`, every creation protected unless `env` says otherwise. */
async function startServer(
  env: Record<string, string> = {},
  idp: TestProvider = provider,
): Promise<TestServer> {
  const server = await startTestServer({
    env: { ...loginEnv(idp, serverPort, SECRET), FILE_REQUEST_DAILY_LIMIT: '2', ...env },
  })
  running.push(server)
  return server
}

const {
  startLogin,
  browserLogin,
  sessionOf,
  uploadInit,
  createNote,
  createFileRequest,
  requestLimit,
  socketInit,
} = loginClient(() => baseUrl)

/** Every fifth character of the signature changed: the same token, no longer signed by us. */
function tamper(token: string): string {
  const [header, payload, signature = ''] = token.split('.')
  const flipped = [...signature].map((ch, i) => (i % 5 === 0 ? (ch === 'A' ? 'B' : 'A') : ch))
  return `${header}.${payload}.${flipped.join('')}`
}

function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<
    string,
    unknown
  >
}

describe('browser login', () => {
  it('logs in through the provider and sets an HttpOnly, Lax session cookie', async () => {
    await startServer()
    const browser = new Browser()
    const { callback } = await startLogin(browser)
    const res = await browser.fetch(callback)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
    const cookie = browser.lastSetCookies.find((c) => c.startsWith(`${SESSION_COOKIE_NAME}=`))
    expect(cookie).toMatch(/; HttpOnly/)
    expect(cookie).toMatch(/; SameSite=Lax/)
    expect(cookie).toMatch(/; Path=\/(;|$)/)
    expect(cookie).toMatch(/; Max-Age=86400/)
    // BASE_URL is http here, so the cookie cannot be Secure or the browser would drop it.
    expect(cookie).not.toMatch(/Secure/)

    const session = browser.cookie(baseUrl, SESSION_COOKIE_NAME)!
    const payload = decodePayload(session)
    expect(payload).toMatchObject({ sub: 'ada', name: 'Ada Lovelace', email: 'ada@example.org' })
    expect(Object.keys(payload).sort()).toEqual(['email', 'exp', 'iat', 'name', 'sub'])
    expect((payload.exp as number) - (payload.iat as number)).toBe(86400)

    const me = await sessionOf({ cookie: `${SESSION_COOKIE_NAME}=${session}` })
    expect(me.status).toBe(200)
    expect(await me.json()).toEqual({ sub: 'ada', name: 'Ada Lovelace', email: 'ada@example.org' })
  })

  it('sends the authorization request with PKCE S256, a nonce and a 5-minute PKCE cookie', async () => {
    await startServer()
    const browser = new Browser()
    const res = await browser.fetch(`${baseUrl}/auth/login`)
    expect(res.status).toBe(302)
    const target = new URL(location(res, baseUrl))
    expect(target.origin).toBe(provider.issuer)
    expect(target.searchParams.get('code_challenge_method')).toBe('S256')
    expect(target.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(target.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/)
    expect(target.searchParams.get('redirect_uri')).toBe(`${baseUrl}/auth/callback`)
    expect(target.searchParams.get('scope')).toBe('openid profile email')
    const cookie = browser.lastSetCookies.find((c) => c.startsWith(`${PKCE_COOKIE_NAME}=`))
    expect(cookie).toMatch(/; Max-Age=300/)
    expect(cookie).toMatch(/; HttpOnly/)
    expect(cookie).toMatch(/; Path=\/auth/)
  })

  it('marks the cookies Secure when BASE_URL is https', async () => {
    // Only the cookie attributes matter here; the provider never sees this redirect URI.
    await startServer({ BASE_URL: 'https://files.example' })
    const res = await fetch(`${baseUrl}/auth/login`, { redirect: 'manual' })
    expect(res.headers.getSetCookie().join('\n')).toMatch(/; Secure/)
  })
})

describe('the guard on creation', () => {
  it('accepts the session cookie and the bearer token on every protected creation', async () => {
    await startServer()
    const session = await browserLogin()
    const cookie = { cookie: `${SESSION_COOKIE_NAME}=${session}` }
    for (const credential of [cookie, bearer(session)]) {
      expect((await uploadInit(credential)).status).toBe(201)
      expect((await createNote(credential)).status).toBe(201)
      expect((await createFileRequest(credential)).status).toBe(201)
      expect((await requestLimit(credential)).status).toBe(200)
      expect(await socketInit(credential)).toMatchObject({ type: 'ready' })
    }
  })

  it('takes a Bearer token over the cookie and ignores other Authorization schemes', async () => {
    await startServer()
    const session = await browserLogin()
    const cookie = `${SESSION_COOKIE_NAME}=${session}`
    // Security: an invalid Bearer token is refused even when a valid cookie rides along.
    expect((await createNote({ cookie, Authorization: 'Bearer forged' })).status).toBe(401)
    // A site behind HTTP Basic auth sends that header with every request; the cookie still counts.
    expect((await createNote({ cookie, Authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(201)
  })

  it('answers 401 to every protected creation without a credential', async () => {
    await startServer()
    for (const res of [
      await uploadInit({}),
      await createNote({}),
      await createFileRequest({}),
      await requestLimit({}),
    ]) {
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ error: 'Login required' })
    }
    expect(await socketInit({})).toMatchObject({ type: 'error', message: 'Login required' })
  })

  it('leaves unprotected creations open and reading public', async () => {
    await startServer({ OIDC_PROTECT_FILES: 'false', OIDC_PROTECT_REQUESTS: 'false' })
    expect((await uploadInit({})).status).toBe(201)
    expect((await createNote({})).status).toBe(401)
    expect((await requestLimit({})).status).toBe(200)
    expect((await fetch(`${baseUrl}/api/config`)).status).toBe(200)
  })

  it('tells clients through /api/config that login is on and which creations need it', async () => {
    await startServer({ OIDC_PROTECT_FILES: 'false' })
    const config = (await (await fetch(`${baseUrl}/api/config`)).json()) as Record<string, unknown>
    expect(config.loginEnabled).toBe(true)
    expect(config.loginRequired).toEqual({ files: false, notes: true, requests: true })
  })

  it('counts the daily request limit per user, not per IP, when requests need a login', async () => {
    await startServer()
    const ada = bearer(await browserLogin(new Browser(), 'ada'))
    const bob = bearer(await browserLogin(new Browser(), 'bob'))
    expect((await createFileRequest(ada)).status).toBe(201)
    expect((await createFileRequest(ada)).status).toBe(201)
    expect((await createFileRequest(ada)).status).toBe(429)
    expect(await (await requestLimit(ada)).json()).toMatchObject({ dailyLimit: 2, remaining: 0 })
    // Same IP, another user: a full allowance.
    expect(await (await requestLimit(bob)).json()).toMatchObject({ dailyLimit: 2, remaining: 2 })
    expect((await createFileRequest(bob)).status).toBe(201)
  })
})

describe('email notifications with login on', () => {
  // Security: an address typed by an anonymous visitor is never mailed.
  it('takes an email address only from a signed-in creator, even where requests are open', async () => {
    await startServer({ OIDC_PROTECT_REQUESTS: 'false', SMTP_URL: 'smtp://127.0.0.1:25' })
    const email = { notifyEmail: 'owner@example.org' }
    const anonymous = await createFileRequest({}, email)
    expect(anonymous.status).toBe(400)
    expect(await anonymous.json()).toEqual({
      error: 'Invalid request',
      details: { notifyEmail: 'needs a signed-in creator on this server' },
    })
    expect((await createFileRequest({})).status).toBe(201)
    const ada = bearer(await browserLogin(new Browser(), 'ada'))
    const signedIn = await createFileRequest(ada, email)
    expect(signedIn.status, await signedIn.clone().text()).toBe(201)
  })
})

describe('sessions', () => {
  it('refuses a session whose signature was tampered with', async () => {
    await startServer()
    const forged = tamper(await browserLogin())
    expect((await sessionOf(bearer(forged))).status).toBe(401)
    expect((await sessionOf({ cookie: `${SESSION_COOKIE_NAME}=${forged}` })).status).toBe(401)
    expect((await uploadInit(bearer(forged))).status).toBe(401)
  })

  it('refuses a session with a changed payload under the original signature', async () => {
    await startServer()
    const [header, , signature] = (await browserLogin()).split('.')
    const payload = Buffer.from(
      JSON.stringify({ sub: 'admin', name: 'x', email: 'x', iat: 1, exp: 4e9 }),
    ).toString('base64url')
    expect((await createNote(bearer(`${header}.${payload}.${signature}`))).status).toBe(401)
  })

  it('refuses a session signed with another secret or with alg none', async () => {
    await startServer()
    const user: SessionResponse = { sub: 'ada', name: 'Ada', email: 'ada@example.org' }
    const other = await new SignJWT({ ...user })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-another-secret-32'))
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ ...user, iat: 1, exp: 4e9 }),
    ).toString('base64url')}.`
    for (const token of [other, none, 'not-a-jwt']) {
      expect((await sessionOf(bearer(token))).status).toBe(401)
      expect((await createNote(bearer(token))).status).toBe(401)
    }
  })

  it('accepts a session signed with OIDC_SESSION_SECRET, the documented HS256 key', async () => {
    await startServer()
    const token = await new SignJWT({ name: 'Ada', email: 'ada@example.org' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('ada')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET))
    expect((await sessionOf(bearer(token))).status).toBe(200)
  })

  it('refuses a session once OIDC_SESSION_DURATION has passed', async () => {
    await startServer({ OIDC_SESSION_DURATION: '60' })
    const session = await browserLogin()
    expect((await sessionOf(bearer(session))).status).toBe(200)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 61_000)
    expect((await sessionOf(bearer(session))).status).toBe(401)
    expect((await uploadInit(bearer(session))).status).toBe(401)
  })

  it('answers 401 on /auth/session without a session', async () => {
    await startServer()
    const res = await sessionOf({})
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ error: 'Login required' })
  })
})

describe('callback failures', () => {
  it('refuses a callback whose state differs from the PKCE cookie', async () => {
    await startServer()
    const browser = new Browser()
    const { callback } = await startLogin(browser)
    const wrong = new URL(callback)
    wrong.searchParams.set('state', 'not-the-state')
    const res = await browser.fetch(wrong.href)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'Login failed' })
    expect(browser.cookie(baseUrl, SESSION_COOKIE_NAME)).toBeUndefined()
    // The PKCE cookie is spent: the right state does not help afterwards.
    expect(browser.cookie(baseUrl, PKCE_COOKIE_NAME)).toBeUndefined()
    expect((await browser.fetch(callback)).status).toBe(400)
  })

  it('refuses a callback without the PKCE cookie', async () => {
    await startServer()
    const browser = new Browser()
    const { callback } = await startLogin(browser)
    browser.setCookie(baseUrl, PKCE_COOKIE_NAME, undefined)
    expect((await browser.fetch(callback)).status).toBe(400)
  })

  it('refuses a PKCE cookie that was tampered with', async () => {
    await startServer()
    const browser = new Browser()
    const { callback, pkce } = await startLogin(browser)
    browser.setCookie(baseUrl, PKCE_COOKIE_NAME, tamper(pkce))
    expect((await browser.fetch(callback)).status).toBe(400)
  })

  it('refuses a PKCE cookie older than 5 minutes while the code is still good', async () => {
    await startServer()
    // The same login state re-signed with the cookie key: only its times differ.
    const resign = async (pkce: string, issuedSecAgo: number) => {
      const now = Math.floor(Date.now() / 1000)
      const key = new Uint8Array(hkdfSync('sha256', SECRET, new Uint8Array(), PKCE_KEY_LABEL, 32))
      return new SignJWT({ ...decodePayload(pkce), iat: now - issuedSecAgo })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setExpirationTime(now - issuedSecAgo + 300)
        .sign(key)
    }
    const fresh = new Browser()
    const first = await startLogin(fresh)
    fresh.setCookie(baseUrl, PKCE_COOKIE_NAME, await resign(first.pkce, 10))
    expect((await fresh.fetch(first.callback)).status).toBe(302)

    const late = new Browser()
    const second = await startLogin(late)
    late.setCookie(baseUrl, PKCE_COOKIE_NAME, await resign(second.pkce, 301))
    const res = await late.fetch(second.callback)
    expect(res.status).toBe(400)
    expect(late.cookie(baseUrl, SESSION_COOKIE_NAME)).toBeUndefined()
  })

  it('refuses a replayed authorization code', async () => {
    await startServer()
    const browser = new Browser()
    const { callback, pkce } = await startLogin(browser)
    expect((await browser.fetch(callback)).status).toBe(302)
    // The replay carries the same, still valid PKCE cookie, so only the provider can refuse it.
    const replay = new Browser()
    replay.setCookie(baseUrl, PKCE_COOKIE_NAME, pkce)
    const res = await replay.fetch(callback)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'Login failed' })
    expect(replay.cookie(baseUrl, SESSION_COOKIE_NAME)).toBeUndefined()
  })

  it('refuses a callback carrying an error from the provider', async () => {
    await startServer()
    const browser = new Browser()
    const { callback } = await startLogin(browser)
    const denied = new URL(callback)
    denied.searchParams.delete('code')
    denied.searchParams.set('error', 'access_denied')
    expect((await browser.fetch(denied.href)).status).toBe(400)
  })
})

describe('adapters', () => {
  const noName = { preferred_username: 'ada.l', email: 'ada@example.org' }
  const full = { name: 'Ada Lovelace', preferred_username: 'ada.l', email: 'ada@example.org' }

  it.each([
    ['generic', full, 'Ada Lovelace'],
    ['generic', noName, ''],
    ['pocketid', full, 'Ada Lovelace'],
    ['pocketid', noName, ''],
    ['authentik', full, 'Ada Lovelace'],
    ['authentik', noName, ''],
    ['keycloak', full, 'Ada Lovelace'],
    ['keycloak', noName, 'ada.l'],
  ])('%s maps claims %j to the name %j', async (adapter, claims, name) => {
    await startServer({ OIDC_PROVIDER: adapter })
    provider.claims = claims
    const session = await browserLogin()
    const me = await sessionOf(bearer(session))
    expect(await me.json()).toEqual({ sub: 'ada', name, email: 'ada@example.org' })
  })

  it('leaves email empty when the provider sends none', async () => {
    await startServer()
    provider.claims = { name: 'Ada' }
    const me = await sessionOf(bearer(await browserLogin()))
    expect(await me.json()).toEqual({ sub: 'ada', name: 'Ada', email: '' })
  })
})

describe('command-line login', () => {
  it('redirects to cli_callback with the session token and sets no cookie', async () => {
    await startServer()
    const browser = new Browser()
    const cli = 'http://127.0.0.1:8765/callback?attempt=1'
    const { callback } = await startLogin(browser, `?cli_callback=${encodeURIComponent(cli)}`)
    const res = await browser.fetch(callback)
    expect(res.status).toBe(302)
    const target = new URL(location(res, baseUrl))
    expect(`${target.origin}${target.pathname}`).toBe('http://127.0.0.1:8765/callback')
    expect(target.searchParams.get('attempt')).toBe('1')
    const token = target.searchParams.get('token')!
    expect(browser.cookie(baseUrl, SESSION_COOKIE_NAME)).toBeUndefined()
    expect((await sessionOf(bearer(token))).status).toBe(200)
    expect((await uploadInit(bearer(token))).status).toBe(201)
  })

  it('accepts localhost on any port', async () => {
    await startServer()
    const res = await fetch(
      `${baseUrl}/auth/login?cli_callback=${encodeURIComponent('http://localhost:43210/cb')}`,
      { redirect: 'manual' },
    )
    expect(res.status).toBe(302)
  })

  // Security: the session token is handed only to a loopback listener over plain http.
  it.each([
    'http://localhost.evil.example',
    'https://localhost',
    'http://127.0.0.1@evil.example',
    'http://evil.example/?http://localhost',
    'http://[::1]:8765/',
    'javascript:alert(1)',
    '',
  ])('refuses cli_callback=%j with 400 and no redirect', async (cli) => {
    await startServer()
    const res = await fetch(`${baseUrl}/auth/login?cli_callback=${encodeURIComponent(cli)}`, {
      redirect: 'manual',
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'Invalid cli_callback' })
    expect(res.headers.get('location')).toBeNull()
    expect(res.headers.getSetCookie()).toEqual([])
  })
})

describe('logout', () => {
  it('clears the cookie and sends the browser to the end-session endpoint', async () => {
    await startServer()
    const browser = new Browser()
    await browserLogin(browser)
    const res = await browser.fetch(`${baseUrl}/auth/logout`)
    expect(res.status).toBe(302)
    const target = new URL(location(res, baseUrl))
    expect(`${target.origin}${target.pathname}`).toBe(`${provider.issuer}/session/end`)
    expect(target.searchParams.get('client_id')).toBe(provider.clientId)
    expect(browser.lastSetCookies.join('\n')).toMatch(new RegExp(`^${SESSION_COOKIE_NAME}=;`, 'm'))
    expect(browser.cookie(baseUrl, SESSION_COOKIE_NAME)).toBeUndefined()
  })

  it('redirects to / before the provider metadata is cached', async () => {
    await startServer()
    const res = await fetch(`${baseUrl}/auth/logout`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
  })

  it('redirects to / when the provider has no end-session endpoint', async () => {
    const plain = await createTestProvider({
      redirectUri: `${baseUrl}/auth/callback`,
      endSession: false,
    })
    await plain.start()
    running.push({ close: () => plain.stop() })
    await startServer({}, plain)
    const browser = new Browser()
    await browserLogin(browser)
    const res = await browser.fetch(`${baseUrl}/auth/logout`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
    expect(browser.cookie(baseUrl, SESSION_COOKIE_NAME)).toBeUndefined()
  })
})

describe('provider down', () => {
  it('starts without the provider, answers 503 to login, and logs in once it is up', async () => {
    const late = await createTestProvider({ redirectUri: `${baseUrl}/auth/callback` })
    running.push({ close: () => late.stop() })
    await startServer({}, late)
    const down = await fetch(`${baseUrl}/auth/login`, { redirect: 'manual' })
    expect(down.status).toBe(503)
    expect(await down.json()).toEqual({ error: 'Login provider unreachable' })
    await late.start()
    expect(decodePayload(await browserLogin())).toMatchObject({ sub: 'ada' })
  })

  it('answers 503 to a callback when the provider went down during the login', async () => {
    const flaky = await createTestProvider({ redirectUri: `${baseUrl}/auth/callback` })
    await flaky.start()
    running.push({ close: () => flaky.stop() })
    await startServer({}, flaky)
    const browser = new Browser()
    const { callback } = await startLogin(browser)
    await flaky.stop()
    const res = await browser.fetch(callback)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ error: 'Login provider unreachable' })
  })
})

describe('without login', () => {
  it('has no login routes and says so through /api/config', async () => {
    const server = await startTestServer()
    running.push(server)
    expect((await fetch(`${server.url}/auth/login`, { redirect: 'manual' })).status).toBe(404)
    expect((await fetch(`${server.url}/auth/session`)).status).toBe(404)
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as Record<
      string,
      unknown
    >
    expect(config.loginEnabled).toBe(false)
    expect(config.loginRequired).toEqual({ files: false, notes: false, requests: false })
  })
})

describe('rate limit', () => {
  it('counts the login routes against the per-IP rate limit', async () => {
    await startServer({ RATE_LIMIT_MAX: '2' })
    expect((await sessionOf({})).status).toBe(401)
    expect((await sessionOf({})).status).toBe(401)
    expect((await sessionOf({})).status).toBe(429)
  })
})
