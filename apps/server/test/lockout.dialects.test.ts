/**
 * The failed-attempt lockout is the same on every route that checks a password-derived token
 * (spec: Authentication, Request tokens): a well-formed wrong token counts one failure of the
 * item's key for the caller's IP, a malformed or missing one counts nothing, and after
 * PASSWORD_MAX_ATTEMPTS failures every such route of the item answers 429 with Retry-After.
 */
import { randomBytes } from 'node:crypto'

import { PASSWORD_ALGO, toBase64Url } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import {
  noteBody,
  randomToken,
  startTestServer,
  uploadHeaders,
  type TestServer,
} from './harness.js'
import { RawRequest } from './raw-request.js'
import { call, createRequest, ENV, nextIp } from './requests.suite.js'
import { json } from './uploads.suite.js'

const MAX_ATTEMPTS = Number(ENV.PASSWORD_MAX_ATTEMPTS)

/** Tokens that are no password guess: missing, not base64url, or too short to be a token. */
const MALFORMED: Array<string | undefined> = [
  undefined,
  '',
  'not a token!',
  'AAAA',
  '=' + 'A'.repeat(43),
]

/** One route guarded by a token: `attempt` presents a token from an IP and answers the status. */
interface Guarded {
  right: string
  attempt: (token: string | undefined, ip: string) => Promise<Response>
  /** The status of a refused token (401 on upload and note routes, 404 on inbox routes). */
  refused: number
}

const headerOf = (name: string, token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { [name]: token }

describe('password lockout on every route', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ env: ENV })
  })
  afterAll(() => server.close())

  async function protectedUpload(password = true) {
    const size = 10
    const headers = uploadHeaders(
      size,
      password
        ? {
            'X-Has-Password': 'true',
            'X-Password-Salt': toBase64Url(randomBytes(16)),
            'X-Password-Algo': PASSWORD_ALGO,
            'X-Max-Downloads': '100',
          }
        : { 'X-Max-Downloads': '100' },
      'Content-Length',
    )
    const res = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { ...headers, 'X-Forwarded-For': nextIp() },
      body: randomBytes(size),
    })
    const { id } = (await json(res)) as { id: string }
    return { id, right: headers['X-Auth-Token']! }
  }

  async function protectedNote(password = true) {
    const body = noteBody(
      password
        ? {
            hasPassword: true,
            passwordSalt: toBase64Url(randomBytes(16)),
            passwordAlgo: PASSWORD_ALGO,
          }
        : {},
    )
    const res = await call(server, 'POST', '/note', { body: { ...body, maxViews: 100 } })
    expect(res.status).toBe(201)
    return { id: res.body.id as string, right: body.authToken as string }
  }

  const post = (path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${server.url}/api${path}`, {
      method: 'POST',
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  const routes: Record<string, (password?: boolean) => Promise<Guarded>> = {
    'POST /api/password/:id': async (password) => {
      const up = await protectedUpload(password)
      return {
        right: up.right,
        refused: 401,
        attempt: (token, ip) =>
          post(`/password/${up.id}`, { 'X-Forwarded-For': ip, ...headerOf('X-Auth-Token', token) }),
      }
    },
    'GET /api/download/:id': async (password) => {
      const up = await protectedUpload(password)
      return {
        right: up.right,
        refused: 401,
        attempt: (token, ip) =>
          fetch(`${server.url}/api/download/${up.id}`, {
            headers: { 'X-Forwarded-For': ip, ...headerOf('X-Auth-Token', token) },
          }),
      }
    },
    'POST /api/note/:id/password': async (password) => {
      const note = await protectedNote(password)
      return {
        right: note.right,
        refused: 401,
        attempt: (token, ip) =>
          post(`/note/${note.id}/password`, { 'X-Forwarded-For': ip }, { authToken: token }),
      }
    },
    'POST /api/note/:id/view': async (password) => {
      const note = await protectedNote(password)
      return {
        right: note.right,
        refused: 401,
        attempt: (token, ip) =>
          post(`/note/${note.id}/view`, { 'X-Forwarded-For': ip }, { authToken: token }),
      }
    },
    'GET /api/inbox/:id': async (password) => {
      const req = await createRequest(server, { hasPassword: password ?? true }, nextIp())
      return {
        right: req.inboxToken,
        refused: 404,
        attempt: (token, ip) =>
          fetch(`${server.url}/api/inbox/${req.id}`, {
            headers: { 'X-Forwarded-For': ip, ...headerOf('X-Inbox-Token', token) },
          }),
      }
    },
  }

  // Spec: Limits, the lockout's 429 names Retry-After as the spec spells it, on the wire.
  it('sends Retry-After under its exact name', async () => {
    const up = await protectedUpload()
    const ip = nextIp()
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const headers = { 'X-Forwarded-For': ip, 'X-Auth-Token': randomToken() }
      expect((await post(`/password/${up.id}`, headers)).status).toBe(401)
    }
    const request = await RawRequest.open(server.url, `/api/password/${up.id}`, {
      'X-Forwarded-For': ip,
      'X-Auth-Token': up.right,
      'Content-Length': '0',
    })
    const answer = await request.answer(5000)
    request.destroy()
    expect(answer?.status).toBe(429)
    expect(answer?.headerNames).toContain('Retry-After')
  })

  describe.each(Object.entries(routes))('%s', (_name, guarded) => {
    // Security: PASSWORD_MAX_ATTEMPTS well-formed wrong tokens lock the item for that IP.
    it('locks after PASSWORD_MAX_ATTEMPTS well-formed wrong tokens, the right one included', async () => {
      const route = await guarded()
      const ip = nextIp()
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        expect((await route.attempt(randomToken(), ip)).status).toBe(route.refused)
      }
      const locked = await route.attempt(route.right, ip)
      expect(locked.status).toBe(429)
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
      // Another IP is not locked.
      expect((await route.attempt(route.right, nextIp())).status).toBe(200)
    })

    it('counts no malformed or missing token, however many', async () => {
      const route = await guarded()
      const ip = nextIp()
      for (let round = 0; round < MAX_ATTEMPTS; round++) {
        for (const token of MALFORMED) {
          expect((await route.attempt(token, ip)).status, String(token)).toBe(route.refused)
        }
      }
      expect((await route.attempt(route.right, ip)).status).toBe(200)
    })

    it('never locks an item without a password', async () => {
      const route = await guarded(false)
      const ip = nextIp()
      for (let i = 0; i < MAX_ATTEMPTS + 1; i++) {
        const status = (await route.attempt(randomToken(), ip)).status
        // The password check of an item without a password is a 400, never a failure.
        expect([route.refused, 400]).toContain(status)
      }
      const last = await route.attempt(route.right, ip)
      expect(last.status).not.toBe(429)
    })
  })
})
