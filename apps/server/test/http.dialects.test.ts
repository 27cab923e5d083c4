/** The real server's HTTP surface outside the resource routes: web app hosting, health, 404s and 500s. */
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'
import { querySql } from './dialects.js'

const INDEX_HTML = '<!doctype html><title>fileshare</title>'
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('server with a built web app', () => {
  let webRoot: string
  let server: TestServer

  beforeAll(async () => {
    webRoot = await mkdtemp(join(tmpdir(), 'fileshare-web-'))
    await writeFile(join(webRoot, 'index.html'), INDEX_HTML)
    await mkdir(join(webRoot, 'assets'))
    await writeFile(join(webRoot, 'assets', 'app.js'), 'console.log(1)')
    server = await startTestServer({ webRoot, version: '1.2.3' })
  })

  afterAll(async () => {
    await server.close()
    await rm(webRoot, { recursive: true, force: true })
  })

  it('answers GET /api/health with status, version, an ISO 8601 UTC timestamp and its parts', async () => {
    const before = Date.now()
    const res = await fetch(`${server.url}/api/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toEqual({
      status: 'ok',
      version: '1.2.3',
      timestamp: expect.any(String),
      database: 'ok',
      storage: 'ok',
    })
    expect(body.timestamp).toMatch(ISO_UTC_MS)
    expect(Date.parse(body.timestamp as string)).toBeGreaterThanOrEqual(before - 1000)
  })

  it('marks every API answer, errors included, as not to be stored', async () => {
    // A browser that kept an error (a 410) would show it again after the item changed.
    for (const path of [
      '/api/config',
      '/api/health',
      '/api/quota',
      '/api/info/6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51',
      '/api/nope',
    ]) {
      const res = await fetch(`${server.url}${path}`)
      expect(res.headers.get('cache-control'), path).toBe('no-store')
    }
    expect((await fetch(`${server.url}/assets/app.js`)).headers.get('cache-control')).not.toBe(
      'no-store',
    )
  })

  it('answers an unknown API path or method with a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['GET', '/api'],
      ['GET', '/api/health/extra'],
      ['DELETE', '/api/health'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { method })
      expect(res.status, path).toBe(404)
      expect(await res.json()).toEqual({ error: 'Not found' })
    }
  })

  it('serves index.html at / and for page paths the web app routes itself', async () => {
    for (const path of [
      '/',
      '/d/6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51',
      '/n/abc',
      '/no-such-page',
    ]) {
      const res = await fetch(`${server.url}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(await res.text()).toBe(INDEX_HTML)
    }
  })

  it('answers a missing file, or a path under /auth or /assets, with the JSON 404, not the page', async () => {
    for (const path of [
      '/assets/missing.js',
      '/assets',
      '/auth/session',
      '/auth/login',
      '/favicon.png',
      '/d/abc/logo.svg',
    ]) {
      const res = await fetch(`${server.url}${path}`)
      expect(res.status, path).toBe(404)
      expect(await res.json(), path).toEqual({ error: 'Not found' })
    }
  })

  it('serves the web app static files and never files outside it', async () => {
    const res = await fetch(`${server.url}/assets/app.js`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/javascript/)
    expect(await res.text()).toBe('console.log(1)')
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
    ]) {
      const escaped = await fetch(`${server.url}${path}`)
      expect(await escaped.text()).not.toContain('"name"')
    }
  })
})

describe('an internal failure', () => {
  it('becomes a 500 that leaks nothing', async () => {
    const server = await startTestServer()
    try {
      await server.service.db.close()
      const res = await fetch(`${server.url}/api/info/6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51`)
      expect(res.status).toBe(500)
      expect(await res.json()).toEqual({ error: 'Internal server error' })
      expect((await fetch(`${server.url}/api/health`)).status).toBe(503)
    } finally {
      await server.close()
    }
  })
})

describe('the health check', () => {
  it('answers 503 when a table of the database cannot be read', async () => {
    // Property: health reads the database itself, not only the connection.
    const server = await startTestServer()
    try {
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
      await querySql(server.service.db, 'ALTER TABLE settings RENAME TO settings_gone')
      const res = await fetch(`${server.url}/api/health`)
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({
        status: 'unavailable',
        database: 'unavailable',
        storage: 'ok',
      })
    } finally {
      await server.close()
    }
  })

  it('answers 503 when uploads could not be written to the blob folder', async () => {
    // Property: health writes where uploads are written, so a folder that only exists is not enough.
    const server = await startTestServer()
    try {
      const partial = join(server.dataDir, 'blobs', '.partial')
      await rm(partial, { recursive: true })
      await writeFile(partial, 'not a folder')
      expect((await fetch(`${server.url}/api/health`)).status).toBe(503)
      await rm(partial)
      await mkdir(partial)
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
      expect(await readdir(partial)).toEqual([])
    } finally {
      await server.close()
    }
  })
})

describe('server without a built web app', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({
      webRoot: join(tmpdir(), 'fileshare-web-missing', String(process.pid)),
    })
  })

  afterAll(() => server.close())

  it('answers page paths with a JSON 404 and still answers the API', async () => {
    const page = await fetch(`${server.url}/`)
    expect(page.status).toBe(404)
    expect(await page.json()).toEqual({ error: 'Not found' })
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
  })
})

describe('Strict-Transport-Security', () => {
  // Security: a browser that once reached the service over HTTPS never downgrades to plain HTTP.
  it('is on every answer when BASE_URL is https, and on none otherwise', async () => {
    const secure = await startTestServer({ env: { BASE_URL: 'https://share.example' } })
    const plain = await startTestServer()
    try {
      for (const path of ['/api/health', '/api/nowhere', '/page']) {
        const res = await fetch(`${secure.url}${path}`)
        expect(res.headers.get('strict-transport-security'), path).toBe('max-age=31536000')
        const other = await fetch(`${plain.url}${path}`)
        expect(other.headers.get('strict-transport-security'), path).toBeNull()
      }
    } finally {
      await secure.close()
      await plain.close()
    }
  })
})
