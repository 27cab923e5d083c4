/**
 * Serves a small app with the middleware over real HTTP, through the service's own listener with
 * its security headers, and checks the headers of every answer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { contentSecurityPolicy, ERROR_MESSAGES } from '@fileshare/protocol'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { HttpError } from '../http-error.js'
import { listen, type RunningServer } from '../listen.js'
import { RateLimiter, SLOTS } from '../limits/rate-limiter.js'
import { clientIp } from './client-ip.js'
import { rateLimit } from './rate-limit.js'
import { requestLog } from './request-log.js'
import { securityHeaderValues } from './security-headers.js'

const LIMIT = 3
const WINDOW_MS = 60_000

type ErrorStyle = 'context' | 'scratch'

function buildApp(staticRoot: string, errorStyle: ErrorStyle, lines: string[]): Hono {
  const limiter = new RateLimiter({ windowMs: WINDOW_MS, max: LIMIT, now: () => Date.now() })
  const app = new Hono()
  app.use('*', requestLog({ info: (line) => lines.push(line) }))
  app.use(
    '/api/*',
    rateLimit(
      limiter,
      (c) => clientIp(c, 1),
      (c) => c.req.path.startsWith('/api/exempt/'),
    ),
  )
  app.get('/api/ok/:id', (c) => c.json({ ip: clientIp(c, 0) }))
  app.get('/api/gone', () => {
    throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
  })
  app.get('/api/locked', () => {
    throw new HttpError(429, ERROR_MESSAGES.tooManyAttempts, { headers: { 'Retry-After': '7' } })
  })
  app.get('/api/crash', () => {
    throw new Error('boom')
  })
  app.get('/api/redirect', () => Response.redirect('http://example.test/', 302))
  app.get('/api/exempt/:id', (c) => c.json({ ok: true }))
  app.use('*', serveStatic({ root: staticRoot }))
  app.notFound((c) => c.json({ error: ERROR_MESSAGES.notFound }, 404))
  app.onError((err, c) => {
    const status = err instanceof HttpError ? err.status : 500
    const error = err instanceof HttpError ? err.message : ERROR_MESSAGES.internalError
    const headers = err instanceof HttpError ? err.headers : {}
    if (errorStyle === 'context') return c.json({ error }, status, headers)
    // An answer built without the context, which carries none of the headers set so far.
    return new Response(JSON.stringify({ error }), {
      status,
      headers: { ...headers, 'Content-Type': 'application/json' },
    })
  })
  return app
}

function start(app: Hono): Promise<RunningServer> {
  return listen(app, { port: 0, host: '127.0.0.1', responseHeaders: securityHeaderValues() })
}

const SECURITY_HEADERS = {
  'content-security-policy': contentSecurityPolicy(),
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
}

function expectSecurityHeaders(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    expect(res.headers.get(name), name).toBe(value)
  }
  expect(res.headers.get('permissions-policy')).toMatch(/camera=\(\)/)
}

function expectRateLimitHeaders(res: Response, remaining: number): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT))
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining))
  const reset = Number(res.headers.get('x-ratelimit-reset'))
  expect(Number.isInteger(reset)).toBe(true)
  expect(reset).toBeGreaterThan(Date.now() / 1000)
  expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + 2 * WINDOW_MS) / 1000))
}

let staticRoot: string

beforeAll(async () => {
  staticRoot = await mkdtemp(join(tmpdir(), 'fileshare-static-'))
  await writeFile(join(staticRoot, 'app.js'), 'console.log(1)')
})

afterAll(async () => {
  await rm(staticRoot, { recursive: true, force: true })
})

describe.each<ErrorStyle>(['context', 'scratch'])(
  'middleware over HTTP, errors built %s',
  (style) => {
    const lines: string[] = []
    let url: string
    let server: RunningServer
    let clients = 0
    /** A fresh client IP per test, passed through X-Forwarded-For, so limits do not interfere. */
    const client = () => ({ 'X-Forwarded-For': `198.51.100.${++clients}` })

    beforeAll(async () => {
      server = await start(buildApp(staticRoot, style, lines))
      url = server.url
    })

    afterAll(() => server.close())

    it('puts both header sets on a 200 and sees the socket address', async () => {
      const res = await fetch(`${url}/api/ok/1`, { headers: client() })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ ip: '127.0.0.1' })
      expectSecurityHeaders(res)
      expectRateLimitHeaders(res, LIMIT - 1)
    })

    // Property: a client holding a whole IPv6 /64 cannot dodge the limit by changing address.
    it('counts every address of one IPv6 /64 against one limit', async () => {
      const network = `2001:db8:${++clients}:1`
      for (let i = 1; i <= LIMIT; i++) {
        const res = await fetch(`${url}/api/ok/1`, {
          headers: { 'X-Forwarded-For': `${network}::${i}` },
        })
        expect(res.status).toBe(200)
        expectRateLimitHeaders(res, LIMIT - i)
      }
      const beyond = await fetch(`${url}/api/ok/1`, {
        headers: { 'X-Forwarded-For': `${network}:ffff:ffff:ffff:ffff` },
      })
      expect(beyond.status).toBe(429)
      const neighbour = await fetch(`${url}/api/ok/1`, {
        headers: { 'X-Forwarded-For': `2001:db8:${clients}:2::1` },
      })
      expect(neighbour.status).toBe(200)
    })

    it('keeps both header sets on an HttpError answered by the error handler', async () => {
      const res = await fetch(`${url}/api/gone`, { headers: client() })
      expect(res.status).toBe(410)
      expect(await res.json()).toEqual({ error: ERROR_MESSAGES.uploadUnavailable })
      expectSecurityHeaders(res)
      expectRateLimitHeaders(res, LIMIT - 1)
    })

    it("keeps the error's own Retry-After next to the rate-limit headers", async () => {
      const res = await fetch(`${url}/api/locked`, { headers: client() })
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBe('7')
      expectRateLimitHeaders(res, LIMIT - 1)
    })

    it('keeps both header sets on a 500', async () => {
      const res = await fetch(`${url}/api/crash`, { headers: client() })
      expect(res.status).toBe(500)
      expect(await res.json()).toEqual({ error: ERROR_MESSAGES.internalError })
      expectSecurityHeaders(res)
      expectRateLimitHeaders(res, LIMIT - 1)
    })

    it('puts both header sets on an API 404', async () => {
      const res = await fetch(`${url}/api/nope`, { headers: client() })
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ error: ERROR_MESSAGES.notFound })
      expectSecurityHeaders(res)
      expectRateLimitHeaders(res, LIMIT - 1)
    })

    it('adds headers to a response whose headers are immutable', async () => {
      const res = await fetch(`${url}/api/redirect`, { headers: client(), redirect: 'manual' })
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe('http://example.test/')
      expectSecurityHeaders(res)
      expectRateLimitHeaders(res, LIMIT - 1)
    })

    it('answers 429 with Retry-After beyond the limit, with both header sets', async () => {
      const headers = client()
      for (let i = 0; i < LIMIT; i++) {
        expect((await fetch(`${url}/api/ok/${i}`, { headers })).status).toBe(200)
      }
      const res = await fetch(`${url}/api/ok/x`, { headers })
      expect(res.status).toBe(429)
      expect(await res.json()).toEqual({ error: ERROR_MESSAGES.rateLimited })
      const retryAfter = Number(res.headers.get('retry-after'))
      expect(Number.isInteger(retryAfter)).toBe(true)
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      // At most a window and one of its slots: a request counts until its slot has left.
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((WINDOW_MS + WINDOW_MS / SLOTS) / 1000))
      expectSecurityHeaders(res)
      expectRateLimitHeaders(res, 0)
    })

    it('does not count or label exempt routes', async () => {
      const headers = client()
      for (let i = 0; i <= LIMIT; i++) {
        const res = await fetch(`${url}/api/exempt/${i}`, { headers })
        expect(res.status).toBe(200)
        expect(res.headers.get('x-ratelimit-limit')).toBeNull()
      }
      expectRateLimitHeaders(await fetch(`${url}/api/ok/1`, { headers }), LIMIT - 1)
    })

    it('puts security headers but no rate-limit headers on static files and page 404s', async () => {
      const file = await fetch(`${url}/app.js`)
      expect(file.status).toBe(200)
      expect(await file.text()).toBe('console.log(1)')
      expectSecurityHeaders(file)
      expect(file.headers.get('x-ratelimit-limit')).toBeNull()

      const missing = await fetch(`${url}/missing.js`)
      expect(missing.status).toBe(404)
      expectSecurityHeaders(missing)
    })

    it('logs the route pattern, never the path, query or client address', async () => {
      lines.length = 0
      const headers = { 'X-Forwarded-For': '192.0.2.99' }
      await fetch(`${url}/api/ok/secret-id-123?token=abc`, { headers })
      await fetch(`${url}/api/gone?key=xyz`, { headers })
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^GET \/api\/ok\/:id 200 \d+ms$/)
      expect(lines[1]).toMatch(/^GET \/api\/gone 410 \d+ms$/)
      for (const line of lines)
        expect(line).not.toMatch(/secret-id-123|token|abc|xyz|192\.0\.2|127\.0/)
    })
  },
)
