/**
 * `/metrics` against the real server (docs/operations.md, Metrics): a scripted workload over every
 * transport moves each number by exactly what it did; the token guard, the separate port at
 * 127.0.0.1, and metrics off by default.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'

import {
  createFileRequest,
  encryptedSize,
  openRequest,
  parseLink,
  sendToRequest,
  type RequestLink,
} from '@fileshare/protocol'
import { freePort } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { apiFor, loggingFetch, randomSource, singleFile } from './client-support.js'
import { manualClock, noteBody, randomToken, startTestServer, uploadHeaders } from './harness.js'
import type { TestServer } from './harness.js'
import { TEST_DIALECT } from './dialects.js'
import { TestSocket } from './test-socket.js'

const TOKEN = randomBytes(32).toString('base64url')
const DAY_MS = 86_400_000
const RATE_LIMIT_MAX = 100
/** The address the rate-limit part of the workload comes from (TRUST_PROXY=1). */
const LIMITED_IP = '10.9.9.9'

/** The series of a scrape: `name{label="value",…}` with labels sorted, to its value. */
type Scrape = Map<string, number>

function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}="${value}"`)
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`
}

function parseScrape(text: string): Scrape {
  const series: Scrape = new Map()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    )
    series.set(seriesKey(match[1]!, labels), Number(match[3]))
  }
  return series
}

async function scrapeText(url: string, token = TOKEN): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${token}` } })
  expect(res.status).toBe(200)
  return res.text()
}

function socketUrl(server: TestServer, path = '/api/upload/ws'): string {
  return `${server.url.replace(/^http/, 'ws')}${path}`
}

/** The `init` frame's headers of an upload of `size` bytes (the HTTP headers under frame names). */
function initFrame(size: number): { headers: Record<string, string>; tokens: string[] } {
  const headers = {
    authToken: randomToken(),
    ownerToken: randomToken(),
    salt: randomBytes(32).toString('base64url'),
    maxDownloads: '1',
    expireSec: '86400',
    fileCount: '1',
    contentLength: String(size),
    hasPassword: 'false',
  }
  return { headers, tokens: [headers.authToken, headers.ownerToken] }
}

describe('metrics after a scripted workload', { timeout: 120_000 }, () => {
  const clock = manualClock()
  let server: TestServer
  /** Every id, token and address the workload used: none may show up in a scrape. */
  const secrets: string[] = [TOKEN, LIMITED_IP, '127.0.0.1']

  beforeAll(async () => {
    server = await startTestServer({
      clock,
      env: {
        METRICS_ENABLED: 'true',
        METRICS_TOKEN: TOKEN,
        PASSWORD_MAX_ATTEMPTS: '2',
        RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
        TRUST_PROXY: '1',
      },
    })
  })
  afterAll(() => server?.close())

  async function scrape(): Promise<Scrape> {
    return parseScrape(await scrapeText(server.url))
  }

  const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}/api${path}`, init)

  /** A single-request upload; answers its id and auth token. */
  async function uploadSingle(size: number, extra: Record<string, string> = {}) {
    const headers = uploadHeaders(size, extra, 'Content-Length')
    const res = await api('/upload', { method: 'POST', headers, body: randomBytes(size) })
    expect(res.status, await res.clone().text()).toBe(200)
    const { id } = (await res.json()) as { id: string }
    secrets.push(id, headers['X-Auth-Token']!, headers['X-Owner-Token']!)
    return { id, authToken: headers['X-Auth-Token']! }
  }

  /** A chunked upload of `chunks` bytes each; answers its id and auth token. */
  async function uploadChunked(chunks: number[]) {
    const size = chunks.reduce((a, b) => a + b, 0)
    const headers = uploadHeaders(size)
    const init = await api('/upload/init', { method: 'POST', headers })
    expect(init.status).toBe(201)
    const { id } = (await init.json()) as { id: string }
    for (const [index, length] of chunks.entries()) {
      const res = await api(`/upload/${id}/chunk?index=${index}`, {
        method: 'POST',
        body: randomBytes(length),
      })
      expect(res.status).toBe(200)
    }
    const done = await api(`/upload/${id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': headers['X-Owner-Token']! },
    })
    expect(done.status, await done.clone().text()).toBe(200)
    secrets.push(id, headers['X-Auth-Token']!, headers['X-Owner-Token']!)
    return { id, authToken: headers['X-Auth-Token']! }
  }

  /** A socket upload of 2,000 bytes cut off after `sent`: dormant, it waits for a resume. */
  async function cutUpload(sent: number) {
    const socket = await TestSocket.open(socketUrl(server))
    const init = initFrame(2000)
    const id = await socket.init({ type: 'init', headers: init.headers, resumable: true })
    secrets.push(id, ...init.tokens)
    socket.sendBytes(randomBytes(sent))
    const { sessions, sessionRows: streamed } = server.service.services
    const anySession = (_context: unknown): _context is unknown => true
    await expect.poll(() => sessions.get(id, anySession)?.bytesAccepted).toBe(sent)
    socket.ws.terminate()
    await expect.poll(async () => (await streamed.find(id))?.holder).toBeNull()
    const bytesKept = (await streamed.find(id))!.bytesWritten
    return { id, ownerToken: init.headers.ownerToken!, bytesKept }
  }

  async function download(id: string, authToken: string): Promise<number> {
    const res = await api(`/download/${id}`, { headers: { 'X-Auth-Token': authToken } })
    if (res.status === 200) await res.arrayBuffer()
    return res.status
  }

  it('moves every number by exactly what the workload did, with no id, token or IP in it', async () => {
    const before = await scrape()
    const delta = (after: Scrape, name: string, labels: Record<string, string> = {}) =>
      (after.get(seriesKey(name, labels)) ?? 0) - (before.get(seriesKey(name, labels)) ?? 0)

    // Uploads: one over each transport, and two that fail (a cancelled chunked one, a socket
    // finalized before all its bytes).
    const single = await uploadSingle(1000)
    const chunked = await uploadChunked([2000, 1000])

    const ws = await TestSocket.open(socketUrl(server))
    const wsInit = initFrame(2000)
    const wsId = await ws.init({ type: 'init', headers: wsInit.headers })
    secrets.push(wsId, ...wsInit.tokens)
    const during = await scrape()
    expect(during.get('fileshare_upload_sessions_active')).toBe(1)
    ws.sendBytes(randomBytes(2000))
    ws.sendJson({ type: 'finalize' })
    expect((await ws.waitFor('done')).id).toBe(wsId)
    ws.ws.close()

    const cancelled = uploadHeaders(500)
    const init = await api('/upload/init', { method: 'POST', headers: cancelled })
    const { id: cancelledId } = (await init.json()) as { id: string }
    secrets.push(cancelledId, cancelled['X-Owner-Token']!, cancelled['X-Auth-Token']!)
    // A chunked session lives in the database, not in this process.
    const open = await scrape()
    expect(open.get('fileshare_upload_sessions_active')).toBe(0)
    expect(open.get('fileshare_upload_sessions_stored')).toBe(1)
    const cancel = await api(`/upload/${cancelledId}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': cancelled['X-Owner-Token']! },
    })
    expect(cancel.status).toBe(200)

    const short = await TestSocket.open(socketUrl(server))
    const shortInit = initFrame(200)
    secrets.push(
      await short.init({ type: 'init', headers: shortInit.headers }),
      ...shortInit.tokens,
    )
    short.sendBytes(randomBytes(100))
    short.sendJson({ type: 'finalize' })
    expect((await short.waitFor('error')).status).toBe(400)
    await short.closed

    // A socket that goes away mid-upload leaves its session dormant, for a resume: not failed yet.
    const { id: cutId, bytesKept: cutBytes } = await cutUpload(700)
    const { sessionRows: streamed } = server.service.services

    // An upload into a file request, over chunked HTTP through the client core.
    const log = loggingFetch()
    const requester = apiFor(server, { fetch: log.fetch })
    const request = await createFileRequest(requester, {
      message: 'metrics',
      expireSec: 86_400,
      maxUploads: 2,
      maxSize: 1024 * 1024,
      downloads: 1,
    })
    const link = parseLink(request.uploadLink).link as RequestLink
    const opened = await openRequest(requester, link)
    const plain = randomSource(5000)
    const sent = await sendToRequest(requester, opened, plain.source, {
      metadata: singleFile('x.bin', 5000),
      fileCount: 1,
    })
    expect(sent.transport).toBe('chunks')
    secrets.push(request.id, opened.uploadToken, sent.id)
    // The client core's own calls: its requests, and the settings it reads first.
    const clientCalls = (prefix: string) =>
      log.calls.filter((call) => new URL(call.url).pathname.startsWith(prefix)).length

    // Downloads, a password-protected upload locked out after two wrong tokens, note views.
    expect(await download(single.id, single.authToken)).toBe(200)
    expect(await download(chunked.id, chunked.authToken)).toBe(200)
    const locked = await uploadSingle(500, {
      'X-Has-Password': 'true',
      'X-Password-Salt': randomBytes(16).toString('base64url'),
      'X-Password-Algo': 'argon2id-v2',
    })
    expect(await download(locked.id, randomToken())).toBe(401)
    expect(await download(locked.id, randomToken())).toBe(401)
    expect(await download(locked.id, locked.authToken)).toBe(429)

    const note = noteBody()
    const created = await api('/note', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(note),
    })
    expect(created.status).toBe(201)
    const { id: noteId } = (await created.json()) as { id: string }
    secrets.push(noteId, note.authToken as string, note.ownerToken as string)
    for (let i = 0; i < 2; i++) {
      const view = await api(`/note/${noteId}/view`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ authToken: note.authToken }),
      })
      expect(view.status).toBe(200)
    }

    // The rate limit, from another address.
    const statuses: number[] = []
    for (let i = 0; i <= RATE_LIMIT_MAX; i++) {
      statuses.push((await api('/config', { headers: { 'X-Forwarded-For': LIMITED_IP } })).status)
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(1)

    // Download bytes are counted once the body has gone out.
    await expect
      .poll(async () => delta(await scrape(), 'fileshare_download_bytes_sent_total'))
      .toBe(3000 + 1000)
    const after = await scrape()
    const requestBytes = encryptedSize(5000)

    for (const [transport, started, completed, failed, bytes] of [
      ['single', 2, 2, 0, 1500],
      ['chunks', 3, 2, 1, 3000 + requestBytes],
      ['ws', 3, 1, 1, 2100],
    ] as const) {
      expect(delta(after, 'fileshare_uploads_started_total', { transport }), transport).toBe(
        started,
      )
      expect(delta(after, 'fileshare_uploads_completed_total', { transport }), transport).toBe(
        completed,
      )
      expect(delta(after, 'fileshare_uploads_failed_total', { transport }), transport).toBe(failed)
      expect(delta(after, 'fileshare_upload_bytes_received_total', { transport }), transport).toBe(
        bytes,
      )
    }
    expect(delta(after, 'fileshare_request_uploads_total', { transport: 'chunks' })).toBe(1)
    expect(delta(after, 'fileshare_downloads_total', { delivery: 'stream' })).toBe(2)
    expect(delta(after, 'fileshare_note_views_total')).toBe(2)
    expect(delta(after, 'fileshare_rate_limit_refusals_total')).toBe(1)
    expect(delta(after, 'fileshare_lockout_refusals_total')).toBe(1)
    expect(after.get('fileshare_upload_sessions_active')).toBe(0)

    // Answers by family: upload 2 single + 4 chunked + 2 (cancelled init, delete).
    const answers = (family: string, status: string) =>
      delta(after, 'fileshare_http_responses_total', { class: status, family })
    expect(answers('upload', '2xx')).toBe(8)
    expect(answers('upload', '4xx')).toBe(0)
    expect(answers('download', '2xx')).toBe(2)
    expect(answers('download', '4xx')).toBe(3)
    expect(answers('note', '2xx')).toBe(3)
    expect(answers('request', '2xx')).toBe(clientCalls('/api/request'))
    expect(answers('system', '2xx')).toBe(RATE_LIMIT_MAX + clientCalls('/api/config'))
    expect(answers('system', '4xx')).toBe(1)
    for (const family of ['upload', 'download', 'note', 'request', 'system']) {
      const count = delta(after, 'fileshare_http_request_duration_seconds_count', { family })
      expect(count, family).toBe(answers(family, '2xx') + answers(family, '4xx'))
    }

    // What the database holds, the same on every instance.
    const stored = (kind: string) => after.get(seriesKey('fileshare_stored_items', { kind }))
    const used = (kind: string) => after.get(seriesKey('fileshare_storage_used_bytes', { kind }))
    expect(stored('uploads')).toBe(4)
    expect(used('uploads')).toBe(1000 + 3000 + 2000 + 500)
    expect(stored('request_uploads')).toBe(1)
    expect(used('request_uploads')).toBe(requestBytes)
    expect(stored('notes')).toBe(1)
    expect(stored('requests')).toBe(1)

    // A cleanup run once everything has expired, past the requests' retention.
    clock.advance(8 * DAY_MS + 1)
    expect(await server.service.cleanup.runOnce()).toMatchObject({ leading: true })
    const cleaned = await scrape()
    const removed = (kind: string) => delta(cleaned, 'fileshare_cleanup_removed_total', { kind })
    expect(delta(cleaned, 'fileshare_cleanup_runs_total', { leading: 'true' })).toBe(1)
    // The dormant session idled out in that run: failed once, with the bytes its row kept.
    expect(await streamed.find(cutId)).toBeUndefined()
    expect(delta(cleaned, 'fileshare_uploads_failed_total', { transport: 'ws' })).toBe(2)
    expect(delta(cleaned, 'fileshare_upload_bytes_received_total', { transport: 'ws' })).toBe(
      2100 + cutBytes,
    )
    expect(removed('uploads')).toBe(4)
    expect(removed('notes')).toBe(1)
    expect(removed('request_uploads')).toBe(1)
    expect(cleaned.get(seriesKey('fileshare_storage_used_bytes', { kind: 'uploads' }))).toBe(0)
    expect(
      cleaned.get(seriesKey('fileshare_storage_used_bytes', { kind: 'request_uploads' })),
    ).toBe(0)

    // Counted once: a later run finds nothing more to end.
    await server.service.cleanup.runOnce()
    const again = await scrape()
    expect(delta(again, 'fileshare_uploads_failed_total', { transport: 'ws' })).toBe(2)

    // No label carries an id, a token or an address (ids and tokens as the workload sent them).
    const text = await scrapeText(server.url)
    for (const secret of secrets) expect(text, secret).not.toContain(secret)
  })

  it('counts a dormant session once when its cancel and the idle sweep race, on any instance', async () => {
    // On PostgreSQL the sweep runs on a second instance of the same database.
    const other =
      TEST_DIALECT === 'postgres'
        ? await startTestServer({
            clock,
            env: { DATABASE_URL: server.service.config.databaseUrl! },
          })
        : server
    try {
      const before = await scrape()
      const cut = await cutUpload(300)
      const idleMs = server.service.config.uploadSessionIdleSec * 1000
      clock.advance(idleMs + 1000)
      const [cancel] = await Promise.all([
        api(`/upload/${cut.id}`, {
          method: 'DELETE',
          headers: { 'X-Owner-Token': cut.ownerToken },
        }),
        other.service.services.sessions.expireDormant(idleMs, idleMs),
      ])
      expect([200, 404]).toContain(cancel.status)
      expect(await server.service.services.sessionRows.find(cut.id)).toBeUndefined()
      const after = await scrape()
      const failed = seriesKey('fileshare_uploads_failed_total', { transport: 'ws' })
      expect(after.get(failed)! - before.get(failed)!).toBe(1)
    } finally {
      if (other !== server) await other.close()
    }
  })
})

describe('the /metrics guard', () => {
  let guarded: TestServer
  let separate: TestServer
  let off: TestServer
  let webRoot: string

  beforeAll(async () => {
    webRoot = await mkdtemp(join(tmpdir(), 'fileshare-metrics-web-'))
    await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>fileshare</title>')
    ;[guarded, separate, off] = await Promise.all([
      startTestServer({ env: { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN } }),
      startTestServer({
        env: { METRICS_ENABLED: 'true', METRICS_PORT: String(await freePort()) },
        webRoot,
      }),
      startTestServer({ webRoot }),
    ])
  })
  afterAll(async () => {
    await Promise.all([guarded?.close(), separate?.close(), off?.close()])
    await rm(webRoot, { recursive: true, force: true })
  })

  // Security: a scrape needs the exact METRICS_TOKEN as a Bearer credential.
  it('answers 401 without the token or with a wrong one, and the metrics with it', async () => {
    const scrape = (headers: Record<string, string>) => fetch(`${guarded.url}/metrics`, { headers })
    for (const headers of [
      {},
      { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Basic ${TOKEN}` },
      { Authorization: TOKEN },
    ]) {
      const res = await scrape(headers)
      expect(res.status, JSON.stringify(headers)).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
      expect(await res.json()).toEqual({ error: 'Invalid or missing metrics token' })
    }
    const res = await scrape({ Authorization: `Bearer ${TOKEN}` })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).toContain('# TYPE fileshare_uploads_started_total counter')
    expect(text).toContain('# TYPE process_cpu_seconds_total counter')
  })

  // Security: METRICS_PORT listens on the loopback address only, and the main port has no /metrics.
  it('serves a separate METRICS_PORT on 127.0.0.1 only, and 404 on the main port', async () => {
    const url = separate.service.metricsUrl!
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(`${url}/metrics`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('fileshare_http_responses_total')
    expect((await fetch(`${url}/api/config`)).status).toBe(404)
    const main = await fetch(`${separate.url}/metrics`)
    expect(main.status).toBe(404)
    expect(await main.json()).toEqual({ error: 'Not found' })
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((address) => address?.family === 'IPv4' && !address.internal)
    if (outside) {
      const port = new URL(url).port
      await expect(fetch(`http://${outside.address}:${port}/metrics`)).rejects.toThrow()
    }
  })

  it('refuses to start, naming METRICS_PORT, when that port is taken', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    try {
      await expect(
        startTestServer({ env: { METRICS_ENABLED: 'true', METRICS_PORT: String(port) } }),
      ).rejects.toThrow(`cannot listen on METRICS_PORT ${port} at 127.0.0.1: EADDRINUSE`)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  it('is off by default: /metrics answers 404, not the web app', async () => {
    const res = await fetch(`${off.url}/metrics`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'Not found' })
    expect(off.service.metricsUrl).toBeUndefined()
    expect((await fetch(`${off.url}/d/some-page`)).status).toBe(200)
  })
})
