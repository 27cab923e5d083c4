/**
 * Personal API tokens end to end over real HTTP against a real OIDC provider: a signed-in user
 * creates, lists and revokes tokens; a token creates within its scopes on every guarded route and
 * the upload socket, and is refused outside them, once revoked and once expired; the database
 * holds only its hash (docs/api.md, API tokens).
 */
import { createHash } from 'node:crypto'

import {
  API_TOKEN_PREFIX,
  API_TOKENS_PER_USER,
  SESSION_COOKIE_NAME,
  fromBase64Url,
  type ApiTokenListResponse,
  type CreateApiTokenResponse,
} from '@fileshare/protocol'
import { freePort } from '@fileshare/testing'
import type { TestProvider } from '@fileshare/testing/oidc-provider'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { databaseBytes, querySql, TEST_DIALECT, testPostgres } from './dialects.js'
import {
  manualClock,
  noteBody,
  startTestServer,
  type ManualClock,
  type TestServer,
} from './harness.js'
import { bearer, loginClient, loginEnv, startLoginProvider } from './login-support.js'

const SECRET = 'test-session-secret-of-32-chars!!'
const DAY_MS = 86_400_000

let serverPort: number
let baseUrl: string
let provider: TestProvider
const running: TestServer[] = []

beforeAll(async () => {
  ;({ port: serverPort, baseUrl, provider } = await startLoginProvider())
})

afterEach(async () => {
  while (running.length > 0) await running.pop()?.close()
})

afterAll(async () => {
  await provider.stop()
})

const login = loginClient(() => baseUrl)
const { uploadInit, createNote, createFileRequest, requestLimit, socketInit } = login

async function startServer(
  env: Record<string, string> = {},
  clock: ManualClock = manualClock(),
): Promise<TestServer> {
  const server = await startTestServer({
    env: { ...loginEnv(provider, serverPort, SECRET), ...env },
    clock,
  })
  running.push(server)
  return server
}

/** The session cookie of a browser login as `login`. */
async function loginCookie(user = 'ada'): Promise<Record<string, string>> {
  return { cookie: `${SESSION_COOKIE_NAME}=${await login.browserLogin(undefined, user)}` }
}

function tokensCall(
  method: string,
  headers: Record<string, string>,
  body?: unknown,
  path = '/api/tokens',
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
}

async function createToken(
  headers: Record<string, string>,
  body: Record<string, unknown> = {},
): Promise<CreateApiTokenResponse> {
  const res = await tokensCall('POST', headers, {
    name: 'backup script',
    scopes: ['files', 'notes', 'requests'],
    expiresInDays: 30,
    ...body,
  })
  expect(res.status).toBe(201)
  // Security: the one answer that holds the token is not kept by any cache.
  expect(res.headers.get('cache-control')).toBe('no-store')
  return (await res.json()) as CreateApiTokenResponse
}

async function listTokens(headers: Record<string, string>): Promise<ApiTokenListResponse> {
  const res = await tokensCall('GET', headers)
  expect(res.status).toBe(200)
  return (await res.json()) as ApiTokenListResponse
}

/** The status of each guarded creation sent with `headers`. */
async function creationStatuses(headers: Record<string, string>) {
  return {
    upload: (await uploadInit(headers)).status,
    note: (await createNote(headers)).status,
    request: (await createFileRequest(headers)).status,
    limit: (await requestLimit(headers)).status,
    socket: (await socketInit(headers)).type,
  }
}

const ALLOWED = { upload: 201, note: 201, request: 201, limit: 200, socket: 'ready' }

describe('managing tokens', () => {
  it('creates a token shown once, lists it without the secret, and revokes it', async () => {
    await startServer()
    const ada = await loginCookie()
    const created = await createToken(ada, { name: '  nightly  ', scopes: ['notes', 'files'] })
    expect(created.token).toMatch(/^fst_[\w-]{43}$/)
    expect(created).toMatchObject({ name: 'nightly', scopes: ['files', 'notes'], lastUsedAt: null })
    expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(30 * DAY_MS)

    const { tokens } = await listTokens(ada)
    const { token: _secret, ...info } = created
    expect(tokens).toEqual([info])
    expect(JSON.stringify(tokens)).not.toContain(created.token.slice(API_TOKEN_PREFIX.length))

    expect((await tokensCall('DELETE', ada, undefined, `/api/tokens/${created.id}`)).status).toBe(
      200,
    )
    expect((await listTokens(ada)).tokens).toEqual([])
    const again = await tokensCall('DELETE', ada, undefined, `/api/tokens/${created.id}`)
    expect(again.status).toBe(404)
  })

  // Security: the token routes take the login session only; a token cannot list or mint tokens.
  it('answers 401 without a session and to an API token', async () => {
    await startServer()
    const { token } = await createToken(await loginCookie())
    for (const headers of [{}, bearer(token)]) {
      expect((await tokensCall('GET', headers)).status).toBe(401)
      const body = { name: 'x', scopes: ['files'], expiresInDays: 1 }
      expect((await tokensCall('POST', headers, body)).status).toBe(401)
    }
  })

  // Security: a user sees and revokes only their own tokens.
  it("keeps each user's tokens apart", async () => {
    await startServer()
    const ada = await loginCookie('ada')
    const bob = await loginCookie('bob')
    const adas = await createToken(ada)
    expect((await listTokens(bob)).tokens).toEqual([])
    expect((await tokensCall('DELETE', bob, undefined, `/api/tokens/${adas.id}`)).status).toBe(404)
    expect((await uploadInit(bearer(adas.token))).status).toBe(201)
  })

  it('refuses bad bodies with details, other media types, and bodies over 1 KiB', async () => {
    await startServer()
    const ada = await loginCookie()
    const bad = await tokensCall('POST', ada, {
      name: '',
      scopes: ['files', 'files'],
      expiresInDays: 366,
      admin: true,
    })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { details: Record<string, string> }).details).toEqual({
      name: 'must be 1 to 100 printable characters',
      scopes: 'must list some of files, notes, requests, once each',
      expiresInDays: 'must be a whole number of days from 1 to 365',
      admin: 'unknown field',
    })
    const form = await fetch(`${baseUrl}/api/tokens`, {
      method: 'POST',
      headers: { ...ada, 'Content-Type': 'text/plain' },
      body: '{}',
    })
    expect(form.status).toBe(415)
    const big = await tokensCall('POST', ada, JSON.stringify({ name: 'x'.repeat(2000) }))
    expect(big.status).toBe(413)
    expect((await tokensCall('DELETE', ada, undefined, '/api/tokens/not-a-uuid')).status).toBe(404)
  })

  // Concurrent creations of one user never pass the cap together.
  it(`holds at most ${API_TOKENS_PER_USER} tokens per user, however many are asked at once`, async () => {
    await startServer()
    const ada = await loginCookie()
    const body = { name: 'x', scopes: ['files'], expiresInDays: 1 }
    const answers = await Promise.all(
      Array.from({ length: API_TOKENS_PER_USER + 5 }, () => tokensCall('POST', ada, body)),
    )
    const statuses = answers.map((res) => res.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(API_TOKENS_PER_USER)
    expect(statuses.filter((status) => status === 409)).toHaveLength(5)
    expect((await listTokens(ada)).tokens).toHaveLength(API_TOKENS_PER_USER)
  })

  it('has no token routes when no creation needs the login', async () => {
    await startServer({
      OIDC_PROTECT_FILES: 'false',
      OIDC_PROTECT_NOTES: 'false',
      OIDC_PROTECT_REQUESTS: 'false',
    })
    expect((await tokensCall('GET', await loginCookie())).status).toBe(404)
  })
})

describe('creating with a token', () => {
  it('creates uploads, notes and requests, and opens the upload socket, within its scopes', async () => {
    await startServer()
    const { token } = await createToken(await loginCookie())
    expect(await creationStatuses(bearer(token))).toEqual(ALLOWED)
  })

  // Security: a token passes only for the services in its scopes; others answer 403.
  it('refuses creations outside its scopes with 403', async () => {
    await startServer()
    const ada = await loginCookie()
    const files = await createToken(ada, { scopes: ['files'] })
    expect(await creationStatuses(bearer(files.token))).toEqual({
      ...ALLOWED,
      note: 403,
      request: 403,
      limit: 403,
      socket: 'ready',
    })
    const notes = await createToken(ada, { scopes: ['notes'] })
    const refused = await uploadInit(bearer(notes.token))
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ error: 'API token not valid for this service' })
    expect(await socketInit(bearer(notes.token))).toMatchObject({
      type: 'error',
      message: 'API token not valid for this service',
    })
  })

  // Security: revocation takes effect on the next request; nothing is cached.
  it('answers 401 as soon as the token is revoked', async () => {
    await startServer()
    const ada = await loginCookie()
    const { id, token } = await createToken(ada)
    expect((await createNote(bearer(token))).status).toBe(201)
    await tokensCall('DELETE', ada, undefined, `/api/tokens/${id}`)
    const refused = await createNote(bearer(token))
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: 'Invalid or expired API token' })
    expect(await socketInit(bearer(token))).toMatchObject({ type: 'error' })
  })

  // Security: a revocation on one instance holds on every other at once (PostgreSQL, shared).
  it.runIf(TEST_DIALECT === 'postgres')(
    'is refused by another instance on the same database as soon as one revokes it',
    async () => {
      const shared = { DATABASE_URL: await (await testPostgres()).createDatabase() }
      await startServer(shared)
      const other = await startTestServer({
        env: { ...loginEnv(provider, await freePort(), SECRET), ...shared },
      })
      running.push(other)
      const ada = await loginCookie()
      const { id, token } = await createToken(ada)
      const onOther = (path: string, init: RequestInit = {}) => fetch(`${other.url}${path}`, init)
      const note = () =>
        onOther('/api/note', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...bearer(token) },
          body: JSON.stringify(noteBody()),
        })
      expect((await note()).status).toBe(201)
      expect((await onOther(`/api/tokens/${id}`, { method: 'DELETE', headers: ada })).status).toBe(
        200,
      )
      expect((await createNote(bearer(token))).status).toBe(401)
      expect((await note()).status).toBe(401)
    },
  )

  // Security: a token stops working at its expiry.
  it('answers 401 once the token has expired', async () => {
    const clock = manualClock()
    await startServer({}, clock)
    const { token } = await createToken(await loginCookie(), { expiresInDays: 1 })
    clock.advance(DAY_MS - 1000)
    expect((await uploadInit(bearer(token))).status).toBe(201)
    clock.advance(1000)
    expect((await uploadInit(bearer(token))).status).toBe(401)
  })

  // Security: a malformed or unknown token is no credential, and is not tried as a session JWT.
  it.each([
    ['an unknown token', `fst_${'A'.repeat(43)}`],
    ['a token one character short', `fst_${'A'.repeat(42)}`],
    ['a padded spelling', `fst_${'A'.repeat(43)}=`],
    ['a bare prefix', 'fst_'],
  ])('answers 401 to %s', async (_what, token) => {
    await startServer()
    expect((await createNote(bearer(token))).status).toBe(401)
  })

  it('answers 401 to a token once its last character is changed', async () => {
    await startServer()
    const { token } = await createToken(await loginCookie())
    const last = token.at(-1) === 'A' ? 'Q' : 'A'
    expect((await createNote(bearer(token.slice(0, -1) + last))).status).toBe(401)
  })

  it("counts the daily request limit against the token owner's login", async () => {
    await startServer({ FILE_REQUEST_DAILY_LIMIT: '2' })
    const ada = await loginCookie()
    const { token } = await createToken(ada, { scopes: ['requests'] })
    expect((await createFileRequest(bearer(token))).status).toBe(201)
    expect(await (await requestLimit(ada)).json()).toMatchObject({ remaining: 1 })
  })

  it('names the owner on /auth/session', async () => {
    await startServer()
    const { token } = await createToken(await loginCookie('ada'))
    const res = await login.sessionOf(bearer(token))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ sub: 'ada', name: '', email: '' })
  })

  it('records the last use to the minute, with at most one write a minute', async () => {
    const clock = manualClock()
    const server = await startServer({}, clock)
    const ada = await loginCookie()
    const { token } = await createToken(ada)
    await createNote(bearer(token))
    const first = (await listTokens(ada)).tokens[0]!.lastUsedAt
    expect(first).toBe(new Date(clock.now()).toISOString())
    clock.advance(59_000)
    await createNote(bearer(token))
    expect((await listTokens(ada)).tokens[0]!.lastUsedAt).toBe(first)
    clock.advance(1000)
    await createNote(bearer(token))
    expect((await listTokens(ada)).tokens[0]!.lastUsedAt).toBe(new Date(clock.now()).toISOString())
    const rows = await querySql(server.service.db, 'SELECT last_used_at FROM api_tokens')
    expect(rows.map((r) => Number(r.last_used_at))).toEqual([clock.now()])
  })
})

describe('storage', () => {
  // Security: the database holds the token's SHA-256 hash only, never the token or its bytes.
  it('stores the hash of the token and nothing that opens it', async () => {
    const server = await startServer()
    const { token } = await createToken(await loginCookie())
    const bytes = Buffer.from(fromBase64Url(token.slice(API_TOKEN_PREFIX.length)))
    const rows = await querySql<{ token_hash: Uint8Array }>(
      server.service.db,
      'SELECT token_hash FROM api_tokens',
    )
    expect(Buffer.from(rows[0]!.token_hash)).toEqual(createHash('sha256').update(bytes).digest())
    const stored = await databaseBytes(server.service.db, server.dataDir)
    expect(stored.includes(token)).toBe(false)
    expect(stored.includes(token.slice(API_TOKEN_PREFIX.length))).toBe(false)
    expect(stored.includes(bytes)).toBe(false)
  })

  it('indexes expires_at, which the purge of expired tokens filters on', async () => {
    const { db } = (await startServer()).service
    const columns =
      TEST_DIALECT === 'sqlite'
        ? await querySql<{ name: string }>(db, `PRAGMA index_info('api_tokens_expires_at')`)
        : await querySql<{ name: string }>(
            db,
            `SELECT a.attname AS name FROM pg_indexes i
               JOIN pg_class c ON c.relname = i.indexname
               JOIN pg_attribute a ON a.attrelid = c.oid
             WHERE i.tablename = 'api_tokens' AND i.indexname = 'api_tokens_expires_at'`,
          )
    expect(columns.map((column) => column.name)).toEqual(['expires_at'])
  })
})
