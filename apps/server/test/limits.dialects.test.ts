/**
 * Limits and response headers on the real server: rate-limit headers on every /api answer and
 * upload socket handshake and 429 beyond the limit, the upload quota end to end, security headers everywhere, and services
 * switched off by ENABLED_SERVICES (spec: Limits).
 */
import { randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'

import {
  manualClock,
  requestHead,
  startTestServer,
  uploadHeaders,
  type TestServer,
} from './harness.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function upload(url: string, size: number) {
  return fetch(`${url}/api/upload`, {
    method: 'POST',
    headers: uploadHeaders(size, {}, 'Content-Length'),
    body: randomBytes(size),
  })
}

describe('rate limit', () => {
  it('sets the three headers on every /api answer and answers 429 with Retry-After beyond it', async () => {
    server = await startTestServer({ env: { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW: '60000' } })
    const answers = []
    for (const path of [
      '/api/health',
      '/api/info/nope',
      '/api/nope',
      '/api/config',
      '/api/health',
    ]) {
      answers.push(await fetch(`${server.url}${path}`))
    }
    expect(answers.map((r) => r.status)).toEqual([200, 404, 404, 200, 429])
    for (const res of answers) {
      expect(res.headers.get('x-ratelimit-limit')).toBe('4')
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/)
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/)
    }
    expect(answers.map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual([
      3, 2, 1, 0, 0,
    ])
    const limited = answers[4]!
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await limited.json()).toEqual({ error: 'Too many requests' })
    // Pages of the web app are not rate-limited.
    expect((await fetch(`${server.url}/`)).headers.get('x-ratelimit-limit')).toBeNull()
  })
})

describe('rate limit behind a chain of proxies', () => {
  // Property: behind TRUST_PROXY=2, the client is what the outer proxy saw, whatever it forged.
  it('counts by the address the outer of two proxies appended', async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '60000', TRUST_PROXY: '2' },
    })
    const url = `${server.url}/api/health`
    const via = (forwardedFor: string) =>
      fetch(url, { headers: { 'X-Forwarded-For': forwardedFor } })
    // One client behind the same outer proxy, forging a different first address each time.
    const statuses = []
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      statuses.push((await via(`${forged}, 203.0.113.9, 10.0.0.1`)).status)
    }
    expect(statuses).toEqual([200, 200, 429])
    // Another client, through the same two proxies, has its own count.
    expect((await via('203.0.113.10, 10.0.0.1')).status).toBe(200)
  })
})

/** The answer to a WebSocket handshake: 101 and its headers, or the refusal with its body. */
function handshake(
  url: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body?: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('upgrade', (res) => resolve({ status: 101, headers: res.headers }))
    ws.once('open', () => ws.terminate())
    ws.once('unexpected-response', (_req, res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(parts).toString()),
        }),
      )
    })
    ws.once('error', (error) => {
      if (!String(error.message).startsWith('Unexpected server response')) reject(error)
    })
  })
}

describe('rate limit on upload sockets', () => {
  it('counts each upgrade like any request, with the headers on the handshake, and refuses with 429 beyond', async () => {
    // Spec: the rate limit covers all endpoints; the upload socket is one.
    server = await startTestServer({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '60000' } })
    const socketUrl = `${server.url.replace(/^http/, 'ws')}/api/upload/ws`
    const accepted = await handshake(socketUrl)
    expect(accepted.status).toBe(101)
    expect(accepted.headers['x-ratelimit-limit']).toBe('2')
    expect(accepted.headers['x-ratelimit-remaining']).toBe('1')
    expect(accepted.headers['x-ratelimit-reset']).toMatch(/^\d+$/)

    // The same window as HTTP: one request left, then the next upgrade is over the limit.
    const health = await fetch(`${server.url}/api/health`)
    expect(health.headers.get('x-ratelimit-remaining')).toBe('0')
    const refused = await handshake(socketUrl)
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ error: 'Too many requests' })
    expect(refused.headers['x-ratelimit-remaining']).toBe('0')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
  })
})

describe('upload quota', () => {
  it('holds uploads to FILE_UPLOAD_QUOTA_BYTES per IP and reports it at /api/quota', async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
    const initial = (await (await fetch(`${server.url}/api/quota`)).json()) as Record<
      string,
      unknown
    >
    expect(initial).toMatchObject({
      enabled: true,
      limitBytes: 1000,
      usedBytes: 0,
      remainingBytes: 1000,
    })

    expect((await upload(server.url, 600)).status).toBe(200)
    const over = await upload(server.url, 600)
    expect(over.status).toBe(413)
    expect(await over.json()).toEqual({ error: 'Upload exceeds the remaining quota' })
    expect((await upload(server.url, 400)).status).toBe(200)
    const exhausted = await upload(server.url, 1)
    expect(exhausted.status).toBe(429)
    expect(Number(exhausted.headers.get('retry-after'))).toBeGreaterThan(0)
    const after = (await (await fetch(`${server.url}/api/quota`)).json()) as Record<string, unknown>
    expect(after).toMatchObject({ usedBytes: 1000, remainingBytes: 0 })
  })

  it('does not let concurrent inits overshoot the quota', async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
    const url = server.url
    const inits = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${url}/api/upload/init`, { method: 'POST', headers: uploadHeaders(300) }),
      ),
    )
    expect(inits.filter((r) => r.status === 201)).toHaveLength(3)
  })

  it('refuses a single-request upload over the quota without reading its body', async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
    const headers = uploadHeaders(50_000_000, {}, 'Content-Length')
    const head = requestHead('POST', '/api/upload', headers)
    // Only the headers are sent: the answer must come, and the connection close, without the body.
    const answer = await new Promise<string>((resolve, reject) => {
      let text = ''
      const socket = connect(Number(new URL(server!.url).port), '127.0.0.1', () =>
        socket.write(head),
      )
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => (text += chunk))
      socket.once('close', () => resolve(text))
      socket.once('error', reject)
      setTimeout(() => reject(new Error(`still open after 5 s: ${text}`)), 5000).unref()
    })
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(answer).toMatch(/^connection: close\r$/im)
    expect(answer).toContain('Upload exceeds the remaining quota')
  })

  /** Opens a chunked upload of `size` with one chunk sent, as an upload that stops half way. */
  async function started(size: number) {
    const headers = uploadHeaders(size)
    const init = await fetch(`${server!.url}/api/upload/init`, { method: 'POST', headers })
    expect(init.status).toBe(201)
    const { id } = (await init.json()) as { id: string }
    const sent = await fetch(`${server!.url}/api/upload/${id}/chunk?index=0`, {
      method: 'POST',
      body: randomBytes(10),
    })
    expect(sent.status).toBe(200)
    return { id, ownerToken: headers['X-Owner-Token']! }
  }

  // On PostgreSQL the session is kept in the database, whose row holds the quota until it ends.
  it('gives the bytes of a failed upload back', async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
    const { id, ownerToken } = await started(800)
    const done = await fetch(`${server.url}/api/upload/${id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': ownerToken },
    })
    expect(done.status).toBe(400)
    expect((await upload(server.url, 900)).status).toBe(200)
  })

  it('gives the bytes of a cancelled upload back', async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
    const { id, ownerToken } = await started(800)
    expect((await upload(server.url, 900)).status).toBe(413)
    const cancelled = await fetch(`${server.url}/api/upload/${id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': ownerToken },
    })
    expect(cancelled.status).toBe(200)
    expect((await upload(server.url, 900)).status).toBe(200)
  })

  it('gives the bytes of an upload that idled out back', async () => {
    const clock = manualClock()
    const env = { FILE_UPLOAD_QUOTA_BYTES: '1000', UPLOAD_SESSION_IDLE_SEC: '60' }
    server = await startTestServer({ env, clock })
    await started(800)
    expect((await upload(server.url, 900)).status).toBe(413)
    clock.advance(61_000)
    expect((await server.service.cleanup.runOnce()).sessionsExpired).toBe(1)
    expect((await upload(server.url, 900)).status).toBe(200)
  })

  it('keeps the bytes of a finished chunked upload', async () => {
    server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
    const headers = uploadHeaders(800)
    const init = await fetch(`${server.url}/api/upload/init`, { method: 'POST', headers })
    const { id } = (await init.json()) as { id: string }
    await fetch(`${server.url}/api/upload/${id}/chunk?index=0`, {
      method: 'POST',
      body: randomBytes(800),
    })
    const done = await fetch(`${server.url}/api/upload/${id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': headers['X-Owner-Token']! },
    })
    expect(done.status).toBe(200)
    expect((await upload(server.url, 300)).status).toBe(413)
    expect((await upload(server.url, 200)).status).toBe(200)
  })
})

describe('security headers', () => {
  it('are on API answers, errors and pages', async () => {
    server = await startTestServer()
    for (const path of ['/api/health', '/api/info/x', '/nope']) {
      const res = await fetch(`${server.url}${path}`)
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp).toContain("'wasm-unsafe-eval'")
      expect(csp).toContain("default-src 'self'")
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })
})

describe('ENABLED_SERVICES', () => {
  it('refuses new files and notes when their service is off, and says so in /api/config', async () => {
    server = await startTestServer({ env: { ENABLED_SERVICES: 'request' } })
    const res = await upload(server.url, 10)
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ error: 'File uploads are disabled' })
    const note = await fetch(`${server.url}/api/note`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    })
    expect(note.status).toBe(403)
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as Record<
      string,
      unknown
    >
    expect(config.fileRequestsEnabled).toBe(true)
  })

  it('reports file requests off without request', async () => {
    server = await startTestServer({ env: { ENABLED_SERVICES: 'file,note' } })
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as Record<
      string,
      unknown
    >
    expect(config.fileRequestsEnabled).toBe(false)
  })
})

describe('IMPRINT_URL and PRIVACY_URL', () => {
  it('publishes the operator links through /api/config, null when unset', async () => {
    server = await startTestServer({
      env: {
        IMPRINT_URL: 'https://operator.example/imprint',
        PRIVACY_URL: 'https://operator.example/privacy?lang=en',
      },
    })
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as Record<
      string,
      unknown
    >
    expect(config.imprintUrl).toBe('https://operator.example/imprint')
    expect(config.privacyUrl).toBe('https://operator.example/privacy?lang=en')
    await server.close()
    server = await startTestServer()
    const plain = (await (await fetch(`${server.url}/api/config`)).json()) as Record<
      string,
      unknown
    >
    expect(plain.imprintUrl).toBeNull()
    expect(plain.privacyUrl).toBeNull()
  })
})
