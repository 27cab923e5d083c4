/** Starts the real server on a free port and checks the shell's routes over HTTP. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createApp } from '../src/app.js'
import { listen, type RunningServer } from '../src/listen.js'
import { readPackageVersion } from '../src/package-version.js'

const INDEX_HTML = '<!doctype html><title>fileshare</title>'
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('server with a built web app', () => {
  let webRoot: string
  let server: RunningServer

  beforeAll(async () => {
    webRoot = await mkdtemp(join(tmpdir(), 'fileshare-web-'))
    await writeFile(join(webRoot, 'index.html'), INDEX_HTML)
    await mkdir(join(webRoot, 'assets'))
    await writeFile(join(webRoot, 'assets', 'app.js'), 'console.log(1)')
    server = await listen(createApp({ version: readPackageVersion(), webRoot }), {
      port: 0,
      host: '127.0.0.1',
    })
  })

  afterAll(async () => {
    await server.close()
    await rm(webRoot, { recursive: true, force: true })
  })

  it('answers GET /api/health with status, version and an ISO 8601 UTC timestamp', async () => {
    const before = Date.now()
    const res = await fetch(`${server.url}/api/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toEqual({ status: 'ok', version: '0.1.0', timestamp: expect.any(String) })
    expect(body.timestamp).toMatch(ISO_UTC_MS)
    expect(Date.parse(body.timestamp as string)).toBeGreaterThanOrEqual(before - 1000)
  })

  it('answers an unknown API path with a JSON 404', async () => {
    for (const path of ['/api/nope', '/api', '/api/health/extra']) {
      const res = await fetch(`${server.url}${path}`)
      expect(res.status, path).toBe(404)
      expect(await res.json()).toEqual({ error: 'Not found' })
    }
  })

  it('answers an unknown API method with a JSON 404', async () => {
    const res = await fetch(`${server.url}/api/health`, { method: 'DELETE' })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'Not found' })
  })

  it('serves index.html at / and for page paths the web app routes itself', async () => {
    for (const path of ['/', '/download/abc', '/note/new']) {
      const res = await fetch(`${server.url}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(await res.text()).toBe(INDEX_HTML)
    }
  })

  it('serves the web app static files', async () => {
    const res = await fetch(`${server.url}/assets/app.js`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/javascript/)
    expect(await res.text()).toBe('console.log(1)')
  })
})

describe('server without a built web app', () => {
  let server: RunningServer

  beforeAll(async () => {
    const webRoot = join(tmpdir(), 'fileshare-web-missing', String(process.pid))
    server = await listen(createApp({ version: '9.9.9', webRoot }), { port: 0, host: '127.0.0.1' })
  })

  afterAll(() => server.close())

  it('still answers the API', async () => {
    const res = await fetch(`${server.url}/api/health`)
    expect(((await res.json()) as { version: string }).version).toBe('9.9.9')
  })

  it('answers page paths with a JSON 404', async () => {
    const res = await fetch(`${server.url}/`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'Not found' })
  })
})
