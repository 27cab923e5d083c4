/**
 * The failed-attempt lockout is the same on every route that checks a password-derived token
 * (spec: Authentication, Request tokens): a well-formed wrong token counts one failure of the
 * item's key for the caller's IP, a malformed or missing one counts nothing, and after
 * PASSWORD_MAX_ATTEMPTS failures every such route of the item answers 429 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { burstOfGuesses, guardedRoutes } from './guarded-routes.js'
import { randomToken, startTestServer, type TestServer } from './harness.js'
import { RawRequest } from './raw-request.js'
import { ENV, nextIp } from './requests.suite.js'

const MAX_ATTEMPTS = Number(ENV.PASSWORD_MAX_ATTEMPTS)

/** Tokens that are no password guess: missing, not base64url, or too short to be a token. */
const MALFORMED: Array<string | undefined> = [
  undefined,
  '',
  'not a token!',
  'AAAA',
  '=' + 'A'.repeat(43),
]

describe('password lockout on every route', () => {
  const servers: TestServer[] = []
  const routes = guardedRoutes(servers)

  beforeAll(async () => {
    servers.push(await startTestServer({ env: ENV }))
  })
  afterAll(() => servers[0]!.close())

  // Spec: Limits, the lockout's 429 names Retry-After as the spec spells it, on the wire.
  it('sends Retry-After under its exact name', async () => {
    const route = await routes['POST /api/password/:id']!()
    const ip = nextIp()
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect((await route.attempt(randomToken(), ip)).status).toBe(401)
    }
    const request = await RawRequest.open(servers[0]!.url, route.path, {
      'X-Forwarded-For': ip,
      'X-Auth-Token': route.right,
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

    // Security: a burst of concurrent guesses tests no more tokens than guesses in turn would.
    it('answers at most PASSWORD_MAX_ATTEMPTS of 50 concurrent guesses, one of them right', async () => {
      const route = await guarded()
      const statuses = await burstOfGuesses(route, 50, nextIp())
      const answered = statuses.filter((status) => status !== 429)
      expect(answered.length, JSON.stringify(statuses)).toBeLessThanOrEqual(MAX_ATTEMPTS)
      for (const status of answered) expect([route.refused, 200]).toContain(status)
    }, 30_000)

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
