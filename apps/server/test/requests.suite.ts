/**
 * File requests and their inbox over real HTTP against the real server (spec: File request
 * record, Upload inside a request, the File request and Upload slot state tables, POST
 * /api/request to the inbox routes, Request tokens, Limits, Errors), for one storage backend.
 */
import { randomBytes } from 'node:crypto'
import { utimes } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'

import { ERROR_MESSAGES, toBase64, toBase64Url } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { URL_HOLD_MARGIN_MS } from '../src/records/blob-janitor.js'
import { ORPHAN_GRACE_MS } from '../src/ops/cleanup.js'
import { MemoryLockout } from '../src/limits/lockout.js'
import { blobFiles, followDownload, type Backend } from './backends.js'
import type { Db } from '../src/db/client.js'
import { querySql } from './dialects.js'
import { manualClock, startTestServer, type ManualClock, type TestServer } from './harness.js'

const MiB = 1024 * 1024
export const HOUR = 3_600_000
const DAY = 86_400_000
const RETENTION_SEC = 7200
const LOCKOUT_MS = 60_000

/** The settings of the shared server; single tests start their own where they need others. */
export const ENV: Record<string, string> = {
  FILE_MAX_SIZE: '40MB',
  FILE_MAX_FILES_PER_UPLOAD: '10',
  FILE_REQUEST_MAX_SIZE: '64MB',
  FILE_REQUEST_UPLOAD_OPTIONS: '1,3,5',
  FILE_REQUEST_DOWNLOAD_OPTIONS: '1,2,3',
  FILE_REQUEST_EXPIRE_OPTIONS_SEC: '3600,86400',
  FILE_REQUEST_RETENTION_SEC: String(RETENTION_SEC),
  FILE_REQUEST_DAILY_LIMIT: '0',
  FILE_UPLOAD_QUOTA_BYTES: '1GB',
  FILE_UPLOAD_CONCURRENT_CHUNKS: '3',
  PASSWORD_MAX_ATTEMPTS: '3',
  PASSWORD_LOCKOUT_MS: String(LOCKOUT_MS),
  // Shorter than the one hour of request sessions, to show that they keep their own timeout.
  UPLOAD_SESSION_IDLE_SEC: '60',
  CLEANUP_INTERVAL: '86400',
  TRUST_PROXY: 'true',
}

export const b64u = (bytes: number): string => toBase64Url(randomBytes(bytes))

/** Every test that touches the quota or the lockout uses its own client address. */
let ipCounter = 0
export function nextIp(): string {
  ipCounter++
  return `198.51.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`
}

interface Answer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

export async function call(
  server: Pick<TestServer, 'url'>,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; ip?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.ip !== undefined) headers['X-Forwarded-For'] = options.ip
  let body: string | Uint8Array<ArrayBuffer> | null = null
  if (options.body instanceof Uint8Array) body = options.body as Uint8Array<ArrayBuffer>
  else if (typeof options.body === 'string') body = options.body
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['Content-Type'] = 'application/json'
  }
  const res = await fetch(`${server.url}/api${path}`, { method, headers, body })
  const text = await res.text()
  let parsed: Record<string, unknown> = {}
  if (res.headers.get('content-type')?.includes('application/json')) {
    parsed = JSON.parse(text) as Record<string, unknown>
  }
  return { status: res.status, headers: res.headers, body: parsed }
}

interface Created {
  id: string
  closesAt: string
  uploadToken: string
  inboxToken: string
  ownerToken: string
  fields: Record<string, unknown>
}

export function requestBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    vault: b64u(146),
    vaultNonce: b64u(12),
    inboxAuthToken: b64u(32),
    inboxOwnerToken: b64u(32),
    uploadToken: b64u(32),
    brief: { ciphertext: b64u(1040), nonce: b64u(12) },
    expireSec: 86400,
    maxUploads: 5,
    maxSize: 10 * MiB,
    downloads: 2,
    hasPassword: false,
    ...overrides,
  }
}

export async function createRequest(
  server: Pick<TestServer, 'url'>,
  overrides: Record<string, unknown> = {},
  ip?: string,
): Promise<Created> {
  const fields = requestBody(overrides)
  const res = await call(server, 'POST', '/request', { body: fields, ...(ip ? { ip } : {}) })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return {
    id: res.body.id as string,
    closesAt: res.body.closesAt as string,
    uploadToken: fields.uploadToken as string,
    inboxToken: fields.inboxAuthToken as string,
    ownerToken: fields.inboxOwnerToken as string,
    fields,
  }
}

function initHeaders(
  req: Created,
  size: number,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'X-Upload-Token': req.uploadToken,
    'X-Salt': b64u(32),
    'X-Content-Length': String(size),
    ...overrides,
  }
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
}

export function init(
  server: Pick<TestServer, 'url'>,
  req: Created,
  size: number,
  overrides: Record<string, string | undefined> = {},
  ip?: string,
): Promise<Answer> {
  return call(server, 'POST', `/request/${req.id}/upload/init`, {
    headers: initHeaders(req, size, overrides),
    ...(ip ? { ip } : {}),
  })
}

export async function initOk(
  server: Pick<TestServer, 'url'>,
  req: Created,
  size: number,
  overrides: Record<string, string | undefined> = {},
  ip?: string,
): Promise<string> {
  const res = await init(server, req, size, overrides, ip)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.id as string
}

export function chunk(
  server: Pick<TestServer, 'url'>,
  req: Created,
  uid: string,
  index: number | string,
  bytes: Uint8Array,
): Promise<Answer> {
  return call(server, 'POST', `/request/${req.id}/upload/${uid}/chunk?index=${index}`, {
    body: bytes,
  })
}

export function finalizeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    wrapEnc: b64u(65),
    wrapCiphertext: b64u(48),
    encryptedMeta: b64u(1040),
    metaNonce: b64u(12),
    ...overrides,
  }
}

export function finalize(
  server: Pick<TestServer, 'url'>,
  req: Created,
  uid: string,
  body: unknown,
): Promise<Answer> {
  return call(server, 'POST', `/request/${req.id}/upload/${uid}/finalize`, { body })
}

interface Sent {
  id: string
  data: Buffer
  finalized: Record<string, unknown>
}

/** A whole upload into `req`: init, chunks of `chunkSize` in order, finalize. */
export async function send(
  server: TestServer,
  req: Created,
  size: number,
  options: { chunkSize?: number; ip?: string; fileCount?: number } = {},
): Promise<Sent> {
  const data = randomBytes(size)
  const res = await init(
    server,
    req,
    size,
    options.fileCount ? { 'X-File-Count': String(options.fileCount) } : {},
    options.ip,
  )
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  const id = res.body.id as string
  const step = options.chunkSize ?? MiB
  for (let at = 0, index = 0; at < size; at += step, index++) {
    const answer = await chunk(server, req, id, index, data.subarray(at, at + step))
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  }
  const finalized = finalizeBody()
  const done = await finalize(server, req, id, finalized)
  expect(done.status, JSON.stringify(done.body)).toBe(200)
  expect(done.body).toEqual({ id })
  return { id, data, finalized }
}

/**
 * Deletes the rows that keep session `id` resumable (streamed sessions on SQLite, sessions kept
 * by chunk on PostgreSQL), as for a session that ended without returning its slot.
 */
export async function forgetSessionRows(db: Db, id: string): Promise<void> {
  await querySql(db, `DELETE FROM upload_sessions WHERE id = '${id}'`)
  await querySql(db, `DELETE FROM chunk_parts WHERE session_id = '${id}'`)
}

export function readRequest(
  server: TestServer,
  req: Created,
  token = req.uploadToken,
): Promise<Answer> {
  return call(server, 'GET', `/request/${req.id}`, { headers: { 'X-Upload-Token': token } })
}

export function inbox(server: TestServer, req: Created, token = req.inboxToken, ip?: string) {
  return call(server, 'GET', `/inbox/${req.id}`, {
    headers: { 'X-Inbox-Token': token },
    ...(ip ? { ip } : {}),
  })
}

export async function downloadFile(
  server: TestServer,
  req: Created,
  uid: string,
  token = req.inboxToken,
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await followDownload(
    server,
    await fetch(`${server.url}/api/inbox/${req.id}/file/${uid}`, {
      headers: { 'X-Inbox-Token': token },
    }),
  )
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

function manage(
  server: TestServer,
  method: 'DELETE' | 'POST',
  path: string,
  token: string,
  ip?: string,
): Promise<Answer> {
  return call(server, method, path, {
    headers: { 'X-Inbox-Owner-Token': token },
    ...(ip ? { ip } : {}),
  })
}

async function committedBlobs(server: TestServer): Promise<string[]> {
  return (await blobFiles(server)).committed
}

/**
 * Posts `body` in 1 KiB pieces, with or without `Content-Length`, and stops sending once the
 * server answers: the answer to a body the server refuses while it streams.
 */
function streamPost(
  server: TestServer,
  path: string,
  body: Buffer,
  declareLength: boolean,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown>; sent: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': contentType }
    if (declareLength) headers['Content-Length'] = String(body.length)
    const req = httpRequest(`${server.url}/api${path}`, { method: 'POST', headers })
    let answered = false
    let sent = 0
    req.on('response', (res) => {
      answered = true
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        resolve({
          status: res.statusCode ?? 0,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          sent,
        })
      })
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    void (async () => {
      for (let at = 0; at < body.length && !answered; at += 1024) {
        const piece = body.subarray(at, at + 1024)
        await new Promise<void>((done) => req.write(piece, () => done()))
        sent += piece.length
        await new Promise((done) => setImmediate(done))
      }
      if (!answered) req.end()
    })()
  })
}

/** Other spellings of `bytes` (and a truncated one) that the request and inbox routes refuse. */
function misspellings(bytes: Buffer): Record<string, string> {
  const canonical = toBase64Url(bytes)
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const spellings: Record<string, string> = {
    padding: canonical + '='.repeat((4 - (canonical.length % 4)) % 4 || 2),
    whitespace: `${canonical.slice(0, 8)} ${canonical.slice(8)}`,
    'three bytes short': canonical.slice(0, -4),
  }
  const standard = toBase64(bytes).replace(/=+$/, '')
  if (standard !== canonical) spellings['standard alphabet'] = standard
  if (canonical.length % 4 !== 0) {
    const last = alphabet.indexOf(canonical.at(-1)!)
    spellings['non-zero trailing bits'] = canonical.slice(0, -1) + alphabet[last + 1]!
  }
  return spellings
}

/** Bytes whose base64 spelling has `+` and `/`, where base64url has `-` and `_`. */
function bytesWithSymbols(length: number): Buffer {
  const bytes = randomBytes(length)
  bytes[0] = 0xfb
  bytes[1] = 0xff
  return bytes
}

export function requestsSuite(backend: Backend): void {
  describe(`file requests on ${backend.name}`, () => {
    let server: TestServer
    let clock: ManualClock

    beforeAll(async () => {
      clock = manualClock(Date.UTC(2030, 0, 15, 9))
      server = await startTestServer({ clock, env: { ...ENV, ...backend.env() } })
    })
    afterAll(() => server.close())

    describe('POST /api/request', () => {
      it('answers 201 with the id and closesAt = now + expireSec', async () => {
        const res = await call(server, 'POST', '/request', {
          body: requestBody({ expireSec: 3600 }),
        })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(['closesAt', 'id'])
        expect(res.body.id).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
        )
        expect(res.body.closesAt).toBe(new Date(clock.now() + HOUR).toISOString())
      })

      it.each([1040, 2064, 8208])('accepts a brief ciphertext of %i bytes', async (length) => {
        await createRequest(server, { brief: { ciphertext: b64u(length), nonce: b64u(12) } })
      })

      it.each([1, 3, 5, 2, 6, 10])('accepts maxUploads %i (an option or twice one)', async (n) => {
        await createRequest(server, { maxUploads: n })
      })

      it('accepts maxSize up to FILE_REQUEST_MAX_SIZE, above FILE_MAX_SIZE', async () => {
        await createRequest(server, { maxSize: 64 * MiB })
      })

      it.each<[string, Record<string, unknown>]>([
        ['vault of 145 bytes', { vault: b64u(145) }],
        ['vault of 147 bytes', { vault: b64u(147) }],
        ['vaultNonce of 16 bytes', { vaultNonce: b64u(16) }],
        ['inboxAuthToken of 31 bytes', { inboxAuthToken: b64u(31) }],
        ['inboxOwnerToken of 33 bytes', { inboxOwnerToken: b64u(33) }],
        ['uploadToken of 16 bytes', { uploadToken: b64u(16) }],
        ['brief ciphertext of 1039 bytes', { brief: { ciphertext: b64u(1039), nonce: b64u(12) } }],
        ['brief ciphertext of 1041 bytes', { brief: { ciphertext: b64u(1041), nonce: b64u(12) } }],
        ['brief ciphertext of 2048 bytes', { brief: { ciphertext: b64u(2048), nonce: b64u(12) } }],
        ['brief ciphertext of 9232 bytes', { brief: { ciphertext: b64u(9232), nonce: b64u(12) } }],
        ['brief nonce of 11 bytes', { brief: { ciphertext: b64u(1040), nonce: b64u(11) } }],
        ['brief without nonce', { brief: { ciphertext: b64u(1040) } }],
        ['brief as a string', { brief: b64u(1040) }],
        ['a missing brief', { brief: undefined }],
        ['expireSec not an option', { expireSec: 7200 }],
        ['expireSec as a string', { expireSec: '3600' }],
        ['maxUploads 4 (neither an option nor twice one)', { maxUploads: 4 }],
        ['maxUploads 12', { maxUploads: 12 }],
        ['maxUploads 0', { maxUploads: 0 }],
        ['maxSize 0', { maxSize: 0 }],
        ['maxSize over FILE_REQUEST_MAX_SIZE', { maxSize: 64 * MiB + 1 }],
        ['maxSize 1.5', { maxSize: 1.5 }],
        ['downloads not an option', { downloads: 5 }],
        ['hasPassword as a string', { hasPassword: 'true' }],
        ['a missing hasPassword', { hasPassword: undefined }],
        ['a missing vault', { vault: undefined }],
        ['a vault that is not a string', { vault: 146 }],
      ])('answers 400 for %s', async (_name, overrides) => {
        const res = await call(server, 'POST', '/request', { body: requestBody(overrides) })
        expect(res.status).toBe(400)
        expect(res.body.error).toBe(ERROR_MESSAGES.invalidRequest)
      })

      it('refuses unknown fields, at the top and inside brief', async () => {
        for (const body of [
          requestBody({ note: 'hi' }),
          requestBody({ brief: { ciphertext: b64u(1040), nonce: b64u(12), extra: 1 } }),
        ]) {
          const res = await call(server, 'POST', '/request', { body })
          expect(res.status).toBe(400)
          expect(res.body.error).toBe(ERROR_MESSAGES.invalidRequest)
        }
      })

      it('answers 400 for a body that is not a JSON object', async () => {
        for (const body of ['not json', '[]', 'null', '"text"']) {
          const res = await call(server, 'POST', '/request', {
            body,
            headers: { 'Content-Type': 'application/json' },
          })
          expect(res.status).toBe(400)
        }
      })

      describe('refuses every other spelling of a binary field with 400', () => {
        const fields: Array<[string, number, (value: string) => Record<string, unknown>]> = [
          ['vault', 146, (v) => ({ vault: v })],
          ['vaultNonce', 12, (v) => ({ vaultNonce: v })],
          ['uploadToken', 32, (v) => ({ uploadToken: v })],
          ['inboxAuthToken', 32, (v) => ({ inboxAuthToken: v })],
          ['inboxOwnerToken', 32, (v) => ({ inboxOwnerToken: v })],
          ['brief.ciphertext', 1040, (v) => ({ brief: { ciphertext: v, nonce: b64u(12) } })],
          ['brief.nonce', 12, (v) => ({ brief: { ciphertext: b64u(1040), nonce: v } })],
        ]
        it.each(fields)('%s', async (_field, length, place) => {
          const bytes = bytesWithSymbols(length)
          const ok = await call(server, 'POST', '/request', {
            body: requestBody(place(toBase64Url(bytes))),
          })
          expect(ok.status).toBe(201)
          for (const [spelling, value] of Object.entries(misspellings(bytes))) {
            const res = await call(server, 'POST', '/request', { body: requestBody(place(value)) })
            expect(res.status, spelling).toBe(400)
          }
        })
      })

      it('refuses a body over 16 KB with 413, declared or streamed, and accepts 16 KB', async () => {
        const json = JSON.stringify(requestBody())
        // JSON may carry whitespace: the same body padded to exactly the limit, and one byte more.
        const atLimit = Buffer.from(json + ' '.repeat(16 * 1024 - json.length))
        const over = Buffer.from(json + ' '.repeat(16 * 1024 + 1 - json.length))
        expect((await streamPost(server, '/request', atLimit, true)).status).toBe(201)
        expect((await streamPost(server, '/request', atLimit, false)).status).toBe(201)
        for (const declare of [true, false]) {
          const res = await streamPost(server, '/request', over, declare)
          expect(res.status).toBe(413)
          expect(res.body).toEqual({ error: ERROR_MESSAGES.requestBodyTooLarge })
        }
        // Streamed without a length, the refusal comes once the limit is passed, not at the end.
        const huge = Buffer.alloc(4 * MiB, 0x20)
        const streamed = await streamPost(server, '/request', huge, false)
        expect(streamed.status).toBe(413)
        expect(streamed.sent).toBeLessThan(huge.length)
      })
    })

    describe('GET /api/request/:id', () => {
      it('answers the brief and the limits of an open request', async () => {
        const req = await createRequest(server, { maxUploads: 3, maxSize: MiB })
        const res = await readRequest(server, req)
        expect(res.status).toBe(200)
        expect(res.headers.get('cache-control')).toBe('no-store')
        expect(res.body).toEqual({
          brief: req.fields.brief,
          open: true,
          closesAt: req.closesAt,
          uploadsLeft: 3,
          maxUploadSize: MiB,
          maxFilesPerUpload: 10,
        })
      })

      it('reports the smaller of FILE_MAX_SIZE and maxSize', async () => {
        const req = await createRequest(server, { maxSize: 64 * MiB })
        expect((await readRequest(server, req)).body.maxUploadSize).toBe(40 * MiB)
      })

      it('answers 404 for a missing or wrong token and for unknown ids, alike', async () => {
        const req = await createRequest(server)
        const missing = await call(server, 'GET', `/request/${req.id}`)
        const wrong = await readRequest(server, req, b64u(32))
        const inboxToken = await readRequest(server, req, req.inboxToken)
        const unknown = await readRequest(server, { ...req, id: crypto.randomUUID() })
        const notUuid = await readRequest(server, { ...req, id: 'abc' })
        for (const res of [missing, wrong, inboxToken, unknown, notUuid]) {
          expect(res.status).toBe(404)
          expect(res.body).toEqual({ error: ERROR_MESSAGES.requestNotFound })
        }
      })

      it('answers 404 for the right token spelled any other way', async () => {
        const req = await createRequest(server)
        const bytes = Buffer.from(req.uploadToken, 'base64url')
        for (const [spelling, value] of Object.entries(misspellings(bytes))) {
          expect((await readRequest(server, req, value)).status, spelling).toBe(404)
        }
      })

      it('is registered after /limit, which is not taken for an id', async () => {
        const res = await call(server, 'GET', '/request/limit')
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ dailyLimit: 0, remaining: null, resetsAt: null })
      })
    })

    describe('uploading into a request', () => {
      it('stores a chunked upload that the inbox lists and serves byte for byte', async () => {
        const req = await createRequest(server)
        const sent = await send(server, req, 2 * MiB + 123, { chunkSize: MiB, fileCount: 3 })
        const box = await inbox(server, req)
        expect(box.status).toBe(200)
        const entry = (box.body.uploads as Array<Record<string, unknown>>)[0]!
        expect(entry).toEqual({
          id: sent.id,
          size: 2 * MiB + 123,
          fileCount: 3,
          salt: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
          ...sent.finalized,
          downloadCount: 0,
          maxDownloads: 2,
          createdAt: new Date(clock.now()).toISOString(),
          expiresAt: new Date(clock.now() + RETENTION_SEC * 1000).toISOString(),
        })
        const file = await downloadFile(server, req, sent.id)
        expect(file.status).toBe(200)
        expect(file.bytes.equals(sent.data)).toBe(true)
      })

      it('writes chunks that arrive out of order in index order', async () => {
        const req = await createRequest(server)
        const parts = [randomBytes(1000), randomBytes(1000), randomBytes(17)]
        const uid = await initOk(server, req, 2017)
        const answers = await Promise.all(
          [2, 1, 0].map((i) => chunk(server, req, uid, i, parts[i]!)),
        )
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
        expect((await finalize(server, req, uid, finalizeBody())).status).toBe(200)
        expect((await downloadFile(server, req, uid)).bytes.equals(Buffer.concat(parts))).toBe(true)
      })

      it.each<[string, Record<string, string | undefined>]>([
        ['a missing X-Salt', { 'X-Salt': undefined }],
        ['a 16-byte X-Salt', { 'X-Salt': b64u(16) }],
        ['a padded X-Salt', { 'X-Salt': b64u(32) + '=' }],
        ['a missing X-Content-Length', { 'X-Content-Length': undefined }],
        ['X-Content-Length 0', { 'X-Content-Length': '0' }],
        ['X-Content-Length 1.5', { 'X-Content-Length': '1.5' }],
        ['X-Content-Length 010', { 'X-Content-Length': '010' }],
        ['X-File-Count 0', { 'X-File-Count': '0' }],
        ['X-File-Count abc', { 'X-File-Count': 'abc' }],
      ])('answers 400 for %s', async (_name, overrides) => {
        const req = await createRequest(server)
        const res = await init(server, req, 100, overrides)
        expect(res.status).toBe(400)
        expect(res.body.error).toBe(ERROR_MESSAGES.invalidRequest)
      })

      it('refuses every other spelling of X-Salt (400) and of X-Upload-Token (404)', async () => {
        const req = await createRequest(server, { maxUploads: 1 })
        const salt = bytesWithSymbols(32)
        for (const [spelling, value] of Object.entries(misspellings(salt))) {
          expect((await init(server, req, 100, { 'X-Salt': value })).status, spelling).toBe(400)
        }
        const token = Buffer.from(req.uploadToken, 'base64url')
        for (const [spelling, value] of Object.entries(misspellings(token))) {
          expect((await init(server, req, 100, { 'X-Upload-Token': value })).status, spelling).toBe(
            404,
          )
        }
        expect((await init(server, req, 100, { 'X-Salt': toBase64Url(salt) })).status).toBe(201)
      })

      it('answers 400 Too many files over FILE_MAX_FILES_PER_UPLOAD, and defaults to one file', async () => {
        const req = await createRequest(server)
        const res = await init(server, req, 100, { 'X-File-Count': '11' })
        expect(res.status).toBe(400)
        expect(res.body.error).toBe(ERROR_MESSAGES.tooManyFiles)
        const sent = await send(server, req, 10)
        const box = await inbox(server, req)
        expect((box.body.uploads as Array<Record<string, unknown>>)[0]).toMatchObject({
          id: sent.id,
          fileCount: 1,
        })
      })

      it('answers 413 over FILE_MAX_SIZE and over the request maxSize', async () => {
        const big = await createRequest(server, { maxSize: 64 * MiB })
        const overMax = await init(server, big, 40 * MiB + 1)
        expect(overMax.status).toBe(413)
        expect(overMax.body).toEqual({ error: ERROR_MESSAGES.fileTooLarge })
        const small = await createRequest(server, { maxSize: 1000 })
        expect((await init(server, small, 1001)).status).toBe(413)
        expect((await init(server, small, 1000)).status).toBe(201)
        // A refused size takes no slot.
        expect((await readRequest(server, small)).body.uploadsLeft).toBe(4)
      })

      it('answers 404 for an unknown request and a missing or wrong upload token', async () => {
        const req = await createRequest(server)
        for (const overrides of [{ 'X-Upload-Token': undefined }, { 'X-Upload-Token': b64u(32) }]) {
          const res = await init(server, req, 100, overrides)
          expect(res.status).toBe(404)
          expect(res.body).toEqual({ error: ERROR_MESSAGES.requestNotFound })
        }
        expect((await init(server, { ...req, id: crypto.randomUUID() }, 100)).status).toBe(404)
        expect((await readRequest(server, req)).body.uploadsLeft).toBe(5)
      })

      it('reserves slots atomically: 20 concurrent inits for 3 free slots give three 201', async () => {
        const req = await createRequest(server, { maxUploads: 5 })
        await send(server, req, 10)
        await initOk(server, req, 10)
        const answers = await Promise.all(Array.from({ length: 20 }, () => init(server, req, 100)))
        const statuses = answers.map((a) => a.status).sort()
        expect(statuses.filter((s) => s === 201)).toHaveLength(3)
        expect(statuses.filter((s) => s === 409)).toHaveLength(17)
        expect(answers.find((a) => a.status === 409)!.body).toEqual({
          error: ERROR_MESSAGES.requestFull,
        })
        expect((await readRequest(server, req)).body.uploadsLeft).toBe(0)
      })

      it('returns the slot when the upload is cancelled', async () => {
        const req = await createRequest(server, { maxUploads: 1 })
        const uid = await initOk(server, req, 100)
        expect((await chunk(server, req, uid, 0, randomBytes(50))).status).toBe(200)
        expect((await init(server, req, 100)).status).toBe(409)
        const other = await createRequest(server)
        const elsewhere = await call(server, 'DELETE', `/request/${other.id}/upload/${uid}`)
        expect(elsewhere.status).toBe(404)
        const cancel = await call(server, 'DELETE', `/request/${req.id}/upload/${uid}`)
        expect(cancel.status).toBe(200)
        expect(cancel.body).toEqual({ ok: true })
        expect((await call(server, 'DELETE', `/request/${req.id}/upload/${uid}`)).status).toBe(404)
        expect((await chunk(server, req, uid, 1, randomBytes(50))).status).toBe(404)
        expect((await readRequest(server, req)).body.uploadsLeft).toBe(1)
        await send(server, req, 10)
      })

      it('returns the slot when finalize finds fewer bytes than declared', async () => {
        const req = await createRequest(server, { maxUploads: 1 })
        const uid = await initOk(server, req, 100)
        expect((await chunk(server, req, uid, 0, randomBytes(99))).status).toBe(200)
        const res = await finalize(server, req, uid, finalizeBody())
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ error: ERROR_MESSAGES.sizeMismatch })
        expect((await finalize(server, req, uid, finalizeBody())).status).toBe(404)
        expect((await readRequest(server, req)).body.uploadsLeft).toBe(1)
        expect((await inbox(server, req)).body).toMatchObject({ usedUploads: 0, usedBytes: 0 })
      })

      it('keeps the session after an invalid finalize body, so that a corrected one succeeds', async () => {
        const req = await createRequest(server, { maxUploads: 1 })
        const uid = await initOk(server, req, 100)
        expect((await chunk(server, req, uid, 0, randomBytes(100))).status).toBe(200)
        const wrapEnc = bytesWithSymbols(65)
        const invalid: unknown[] = [
          finalizeBody({ wrapEnc: b64u(64) }),
          finalizeBody({ wrapCiphertext: b64u(49) }),
          finalizeBody({ encryptedMeta: b64u(16) }),
          finalizeBody({ encryptedMeta: b64u(75001) }),
          finalizeBody({ metaNonce: b64u(16) }),
          finalizeBody({ metaNonce: undefined }),
          finalizeBody({ extra: true }),
          'not json',
          [],
          ...Object.values(misspellings(wrapEnc)).map((v) => finalizeBody({ wrapEnc: v })),
        ]
        for (const body of invalid) {
          const res =
            typeof body === 'string'
              ? await call(server, 'POST', `/request/${req.id}/upload/${uid}/finalize`, {
                  body,
                  headers: { 'Content-Type': 'application/json' },
                })
              : await finalize(server, req, uid, body)
          expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
        }
        const meta = { encryptedMeta: b64u(75000), wrapEnc: toBase64Url(wrapEnc) }
        const done = await finalize(server, req, uid, finalizeBody(meta))
        expect(done.status).toBe(200)
        const box = await inbox(server, req)
        expect((box.body.uploads as Array<Record<string, unknown>>)[0]).toMatchObject(meta)
      })

      it('refuses a finalize body over 128 KB with 413, declared or streamed, and keeps the session', async () => {
        const req = await createRequest(server, { maxUploads: 1 })
        const uid = await initOk(server, req, 10)
        expect((await chunk(server, req, uid, 0, randomBytes(10))).status).toBe(200)
        const path = `/request/${req.id}/upload/${uid}/finalize`
        const over = Buffer.from(JSON.stringify(finalizeBody()).padEnd(128 * 1024 + 1, ' '))
        for (const declare of [true, false]) {
          const res = await streamPost(server, path, over, declare)
          expect(res.status).toBe(413)
          expect(res.body).toEqual({ error: ERROR_MESSAGES.finalizeBodyTooLarge })
        }
        const atLimit = Buffer.from(JSON.stringify(finalizeBody()).padEnd(128 * 1024, ' '))
        expect((await streamPost(server, path, atLimit, false)).status).toBe(200)
      })

      it('applies the chunk rules: at most 16 MiB, none empty, each index once, a bounded window', async () => {
        const req = await createRequest(server, { maxSize: 64 * MiB })
        const uid = await initOk(server, req, 40 * MiB)
        const tooBig = await streamPost(
          server,
          `/request/${req.id}/upload/${uid}/chunk?index=0`,
          Buffer.alloc(16 * MiB + 1),
          true,
          'application/octet-stream',
        )
        expect(tooBig.status).toBe(413)
        expect(tooBig.body).toEqual({ error: ERROR_MESSAGES.chunkTooLarge })
        expect((await chunk(server, req, uid, 0, new Uint8Array(0))).status).toBe(400)
        expect((await chunk(server, req, uid, 0, Buffer.alloc(16 * MiB))).status).toBe(200)
        expect((await chunk(server, req, uid, 0, randomBytes(10))).status).toBe(400)
        // FILE_UPLOAD_CONCURRENT_CHUNKS is 3: chunks 2, 3 and 4 may wait for chunk 1, no more.
        const waiting = [2, 3, 4].map((i) => chunk(server, req, uid, i, randomBytes(10)))
        await new Promise((resolve) => setTimeout(resolve, 100))
        const beyond = await chunk(server, req, uid, 5, randomBytes(10))
        expect(beyond.status).toBe(429)
        expect(beyond.body).toEqual({ error: ERROR_MESSAGES.tooManyOutOfOrderChunks })
        expect((await chunk(server, req, uid, 1, randomBytes(10))).status).toBe(200)
        expect((await Promise.all(waiting)).map((a) => a.status)).toEqual([200, 200, 200])
        for (const index of ['-1', '1.5', 'x', '']) {
          expect((await chunk(server, req, uid, index, randomBytes(10))).status).toBe(400)
        }
      })

      it('answers 404 to chunks and finalize of unknown sessions or sessions of another request', async () => {
        const req = await createRequest(server)
        const other = await createRequest(server)
        const uid = await initOk(server, req, 10)
        expect((await chunk(server, other, uid, 0, randomBytes(10))).status).toBe(404)
        expect((await finalize(server, other, uid, finalizeBody())).status).toBe(404)
        expect((await chunk(server, req, crypto.randomUUID(), 0, randomBytes(10))).status).toBe(404)
        expect((await chunk(server, req, 'nope', 0, randomBytes(10))).status).toBe(404)
        // The normal upload routes do not know request sessions either.
        const normal = await fetch(`${server.url}/api/upload/${uid}/chunk?index=0`, {
          method: 'POST',
          body: randomBytes(10),
        })
        expect(normal.status).toBe(404)
        expect((await chunk(server, req, uid, 0, randomBytes(10))).status).toBe(200)
      })

      it('closes a request to new uploads with 410 while a running upload finishes', async () => {
        const req = await createRequest(server)
        const running = await initOk(server, req, 20)
        expect((await chunk(server, req, running, 0, randomBytes(10))).status).toBe(200)
        const closed = await manage(server, 'POST', `/inbox/${req.id}/close`, req.ownerToken)
        expect(closed.status).toBe(200)
        expect(closed.body).toEqual({ ok: true })
        const refused = await init(server, req, 10)
        expect(refused.status).toBe(410)
        expect(refused.body).toEqual({ error: ERROR_MESSAGES.requestClosed })
        expect((await chunk(server, req, running, 1, randomBytes(10))).status).toBe(200)
        expect((await finalize(server, req, running, finalizeBody())).status).toBe(200)
        expect((await readRequest(server, req)).body).toMatchObject({
          open: false,
          uploadsLeft: 0,
          maxUploadSize: 0,
        })
        const box = await inbox(server, req)
        expect(box.body).toMatchObject({ open: false, usedUploads: 1 })
        // Closing again is harmless.
        expect(
          (await manage(server, 'POST', `/inbox/${req.id}/close`, req.ownerToken)).status,
        ).toBe(200)
      })

      it('reads an expired request as closed and refuses uploads with 410', async () => {
        const req = await createRequest(server, { expireSec: 3600 })
        clock.advance(HOUR)
        expect((await readRequest(server, req)).body).toMatchObject({
          open: false,
          uploadsLeft: 0,
          maxUploadSize: 0,
          maxFilesPerUpload: 10,
        })
        expect((await init(server, req, 10)).status).toBe(410)
        expect((await inbox(server, req)).body.open).toBe(false)
      })

      it('answers 404 at finalize when the request was deleted while the upload ran', async () => {
        const req = await createRequest(server)
        const uid = await initOk(server, req, 10)
        expect((await chunk(server, req, uid, 0, randomBytes(10))).status).toBe(200)
        expect((await manage(server, 'DELETE', `/inbox/${req.id}`, req.ownerToken)).status).toBe(
          200,
        )
        expect((await finalize(server, req, uid, finalizeBody())).status).toBe(404)
        expect(await committedBlobs(server)).not.toContain(uid)
      })

      it('ends an HTTP session idle for an hour and returns its slot', async () => {
        const req = await createRequest(server, { maxUploads: 1 })
        const uid = await initOk(server, req, 20)
        expect((await chunk(server, req, uid, 0, randomBytes(10))).status).toBe(200)
        // Past UPLOAD_SESSION_IDLE_SEC (60 s) of normal sessions, within the hour of this one.
        clock.advance(HOUR - 1000)
        await server.service.cleanup.runOnce()
        expect((await chunk(server, req, uid, 1, randomBytes(5))).status).toBe(200)
        clock.advance(HOUR + 1)
        const report = await server.service.cleanup.runOnce()
        expect(report.sessionsExpired).toBe(1)
        expect((await chunk(server, req, uid, 2, randomBytes(5))).status).toBe(404)
        expect((await readRequest(server, req)).body.uploadsLeft).toBe(1)
      })

      it('keeps request files out of /api/download, /api/info and /api/exists', async () => {
        const req = await createRequest(server)
        const sent = await send(server, req, 100)
        const download = await fetch(`${server.url}/api/download/${sent.id}`, {
          headers: { 'X-Auth-Token': req.inboxToken },
        })
        expect(download.status).toBe(404)
        expect((await call(server, 'GET', `/info/${sent.id}`)).status).toBe(404)
        expect((await call(server, 'GET', `/exists/${sent.id}`)).body).toEqual({ exists: false })
        expect((await downloadFile(server, req, sent.id)).status).toBe(200)
      })

      describe('upload quota of the sender', () => {
        let quotaServer: TestServer

        beforeAll(async () => {
          quotaServer = await startTestServer({
            env: { ...ENV, ...backend.env(), FILE_UPLOAD_QUOTA_BYTES: '1000' },
          })
        })
        afterAll(() => quotaServer.close())

        it('answers 413 over the remaining quota and 429 once it is used up', async () => {
          const req = await createRequest(quotaServer)
          const ip = nextIp()
          const over = await init(quotaServer, req, 1001, {}, ip)
          expect(over.status).toBe(413)
          expect(over.body).toEqual({ error: ERROR_MESSAGES.quotaExceeded })
          await send(quotaServer, req, 600, { ip })
          expect((await init(quotaServer, req, 401, {}, ip)).status).toBe(413)
          // An upload that fails gives its bytes back.
          const failed = await init(quotaServer, req, 400, {}, ip)
          expect(failed.status).toBe(201)
          await call(quotaServer, 'DELETE', `/request/${req.id}/upload/${failed.body.id as string}`)
          await send(quotaServer, req, 400, { ip })
          const exhausted = await init(quotaServer, req, 1, {}, ip)
          expect(exhausted.status).toBe(429)
          expect(exhausted.body).toEqual({ error: ERROR_MESSAGES.quotaExhausted })
          expect(exhausted.headers.get('retry-after')).toMatch(/^\d+$/)
          // The refusals took no slot: two finished uploads of five.
          expect((await readRequest(quotaServer, req)).body.uploadsLeft).toBe(3)
          expect((await init(quotaServer, req, 1000, {}, nextIp())).status).toBe(201)
        })
      })
    })

    describe('inbox', () => {
      it('lists the request without counting a download', async () => {
        const req = await createRequest(server, { hasPassword: true, maxUploads: 6, downloads: 1 })
        const first = await send(server, req, 300)
        clock.advance(1)
        const second = await send(server, req, 500, { fileCount: 2 })
        const box = await inbox(server, req)
        expect(box.status).toBe(200)
        expect(box.headers.get('cache-control')).toBe('no-store')
        const { uploads, ...rest } = box.body
        expect(rest).toEqual({
          vault: req.fields.vault,
          vaultNonce: req.fields.vaultNonce,
          brief: req.fields.brief,
          hasPassword: true,
          open: true,
          closesAt: req.closesAt,
          createdAt: new Date(Date.parse(req.closesAt) - DAY).toISOString(),
          maxUploads: 6,
          maxSize: 10 * MiB,
          usedUploads: 2,
          usedBytes: 800,
        })
        expect((uploads as Array<{ id: string }>).map((u) => u.id)).toEqual([first.id, second.id])
        expect((await inbox(server, req)).body.uploads).toEqual(uploads)
        expect((await downloadFile(server, req, first.id)).status).toBe(200)
      })

      it('counts each file download atomically and answers 410 when they are used up', async () => {
        const req = await createRequest(server, { downloads: 2 })
        const sent = await send(server, req, 1000, { fileCount: 4 })
        const first = await downloadFile(server, req, sent.id)
        expect(first.status).toBe(200)
        expect(first.headers.get('content-type')).toBe('application/octet-stream')
        expect(first.headers.get('content-length')).toBe('1000')
        expect(first.headers.get('cache-control')).toBe('no-store')
        expect(first.headers.get('x-file-count')).toBe('4')
        expect(first.bytes.equals(sent.data)).toBe(true)
        const racing = await Promise.all([1, 2, 3, 4].map(() => downloadFile(server, req, sent.id)))
        expect(racing.map((r) => r.status).sort()).toEqual([200, 410, 410, 410])
        const box = await inbox(server, req)
        expect(box.body).toMatchObject({ usedUploads: 1, usedBytes: 1000, uploads: [] })
      })

      it('refuses HEAD on a file with 405 before counting its only download', async () => {
        // Property: a HEAD never uses up a requester's download.
        const req = await createRequest(server, { downloads: 1 })
        const sent = await send(server, req, 1000)
        const head = await fetch(`${server.url}/api/inbox/${req.id}/file/${sent.id}`, {
          method: 'HEAD',
          headers: { 'X-Inbox-Token': req.inboxToken },
        })
        expect(head.status).toBe(405)
        expect(head.headers.get('allow')).toBe('GET')
        const got = await downloadFile(server, req, sent.id)
        expect(got.status).toBe(200)
        expect(got.bytes.equals(sent.data)).toBe(true)
      })

      it('deletes a file: its slot stays used, it leaves the list, its blob goes', async () => {
        const req = await createRequest(server, { maxUploads: 2 })
        const gone = await send(server, req, 100)
        const kept = await send(server, req, 200)
        expect(await committedBlobs(server)).toContain(gone.id)
        const path = `/inbox/${req.id}/file/${gone.id}`
        expect((await manage(server, 'DELETE', path, req.inboxToken)).status).toBe(404)
        const res = await manage(server, 'DELETE', path, req.ownerToken)
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ ok: true })
        expect((await manage(server, 'DELETE', path, req.ownerToken)).status).toBe(404)
        expect(await committedBlobs(server)).not.toContain(gone.id)
        expect((await downloadFile(server, req, gone.id)).status).toBe(404)
        const box = await inbox(server, req)
        expect(box.body).toMatchObject({ usedUploads: 2, usedBytes: 300 })
        expect((box.body.uploads as Array<{ id: string }>).map((u) => u.id)).toEqual([kept.id])
        expect((await readRequest(server, req)).body.uploadsLeft).toBe(0)
        expect((await init(server, req, 10)).status).toBe(409)
      })

      it('deletes a request with every upload and blob in it and ends its running uploads', async () => {
        const req = await createRequest(server)
        const sent = [await send(server, req, 100), await send(server, req, 200)]
        const running = await initOk(server, req, 20)
        expect((await chunk(server, req, running, 0, randomBytes(10))).status).toBe(200)
        expect((await manage(server, 'DELETE', `/inbox/${req.id}`, req.inboxToken)).status).toBe(
          404,
        )
        const res = await manage(server, 'DELETE', `/inbox/${req.id}`, req.ownerToken)
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ ok: true })
        const blobs = await committedBlobs(server)
        for (const { id } of sent) expect(blobs).not.toContain(id)
        expect((await chunk(server, req, running, 1, randomBytes(10))).status).toBe(404)
        expect((await inbox(server, req)).status).toBe(404)
        expect((await readRequest(server, req)).status).toBe(404)
        expect((await downloadFile(server, req, sent[0]!.id)).status).toBe(404)
        expect((await manage(server, 'DELETE', `/inbox/${req.id}`, req.ownerToken)).status).toBe(
          404,
        )
        expect((await init(server, req, 10)).status).toBe(404)
      })

      it('answers 404 for wrong tokens, unknown ids and files of another request', async () => {
        const req = await createRequest(server)
        const other = await createRequest(server)
        const sent = await send(server, other, 10)
        expect((await inbox(server, req, req.ownerToken)).status).toBe(404)
        expect((await inbox(server, req, req.uploadToken)).status).toBe(404)
        expect((await call(server, 'GET', `/inbox/${req.id}`)).status).toBe(404)
        expect((await inbox(server, { ...req, id: crypto.randomUUID() })).status).toBe(404)
        expect((await downloadFile(server, req, sent.id)).status).toBe(404)
        expect((await downloadFile(server, req, crypto.randomUUID())).status).toBe(404)
        expect((await downloadFile(server, req, 'nope')).status).toBe(404)
        const foreign = `/inbox/${req.id}/file/${sent.id}`
        expect((await manage(server, 'DELETE', foreign, req.ownerToken)).status).toBe(404)
        // A file id that is not a UUID is an unknown one, for the inbox's own owner too.
        const notAnId = `/inbox/${other.id}/file/nope`
        expect((await manage(server, 'DELETE', notAnId, other.ownerToken)).status).toBe(404)
        expect(
          (await manage(server, 'POST', `/inbox/${req.id}/close`, req.inboxToken)).status,
        ).toBe(404)
        expect((await downloadFile(server, other, sent.id)).status).toBe(200)
      })

      it('answers 404 for the right inbox token spelled any other way', async () => {
        const req = await createRequest(server)
        const bytes = Buffer.from(req.inboxToken, 'base64url')
        for (const [spelling, value] of Object.entries(misspellings(bytes))) {
          expect((await inbox(server, req, value)).status, spelling).toBe(404)
        }
      })
    })

    describe('lockout', () => {
      it('locks every inbox route of a password request after PASSWORD_MAX_ATTEMPTS wrong tokens', async () => {
        const req = await createRequest(server, { hasPassword: true })
        const sent = await send(server, req, 10)
        const ip = nextIp()
        // Wrong tokens on different routes count together for `request:<id>` and this IP.
        expect((await inbox(server, req, b64u(32), ip)).status).toBe(404)
        expect((await manage(server, 'POST', `/inbox/${req.id}/close`, b64u(32), ip)).status).toBe(
          404,
        )
        expect((await inbox(server, req, req.inboxToken, ip)).status).toBe(200)
        // A success clears the failures; three in a row lock.
        for (let i = 0; i < 3; i++)
          expect((await inbox(server, req, b64u(32), ip)).status).toBe(404)
        const routes: Array<() => Promise<Answer>> = [
          () => inbox(server, req, req.inboxToken, ip),
          () =>
            call(server, 'GET', `/inbox/${req.id}/file/${sent.id}`, {
              headers: { 'X-Inbox-Token': req.inboxToken },
              ip,
            }),
          () => manage(server, 'DELETE', `/inbox/${req.id}/file/${sent.id}`, req.ownerToken, ip),
          () => manage(server, 'POST', `/inbox/${req.id}/close`, req.ownerToken, ip),
          () => manage(server, 'DELETE', `/inbox/${req.id}`, req.ownerToken, ip),
        ]
        for (const route of routes) {
          const res = await route()
          expect(res.status).toBe(429)
          expect(res.body).toEqual({ error: ERROR_MESSAGES.tooManyAttempts })
          expect(res.headers.get('retry-after')).toBe(String(LOCKOUT_MS / 1000))
        }
        // Another IP is not locked; the sender's route has no lockout.
        expect((await inbox(server, req, req.inboxToken, nextIp())).status).toBe(200)
        expect((await readRequest(server, req)).status).toBe(200)
        clock.advance(LOCKOUT_MS)
        expect((await inbox(server, req, req.inboxToken, ip)).status).toBe(200)
      })

      it('shares the key request:<id> with the password and note routes', async () => {
        const req = await createRequest(server, { hasPassword: true })
        const ip = nextIp()
        const { lockout } = server.service.services
        for (let i = 0; i < 3; i++) await lockout.admit(`request:${req.id}`, ip)
        expect((await inbox(server, req, req.inboxToken, ip)).status).toBe(429)
      })

      it('never locks a request without a password, an unknown id, or malformed tokens', async () => {
        const open = await createRequest(server)
        const ip = nextIp()
        for (let i = 0; i < 5; i++)
          expect((await inbox(server, open, b64u(32), ip)).status).toBe(404)
        expect((await inbox(server, open, open.inboxToken, ip)).status).toBe(200)

        const entries = await lockoutEntries(server)
        const unknown = { ...open, id: crypto.randomUUID() }
        for (let i = 0; i < 5; i++)
          expect((await inbox(server, unknown, b64u(32), ip)).status).toBe(404)
        expect(await lockoutEntries(server)).toBe(entries)

        const locked = await createRequest(server, { hasPassword: true })
        for (let i = 0; i < 5; i++) {
          expect((await inbox(server, locked, `${b64u(32)}=`, ip)).status).toBe(404)
          expect((await call(server, 'GET', `/inbox/${locked.id}`, { ip })).status).toBe(404)
        }
        expect((await inbox(server, locked, locked.inboxToken, ip)).status).toBe(200)
      })
    })

    describe('retention and cleanup', () => {
      // Its own server and clock: a cleanup run here must not meet the uploads of other tests.
      let server: TestServer
      let clock: ManualClock

      beforeAll(async () => {
        clock = manualClock()
        server = await startTestServer({ clock, env: { ...ENV, ...backend.env() } })
      })
      afterAll(() => server.close())

      it('deletes each upload FILE_REQUEST_RETENTION_SEC after it arrived', async () => {
        const req = await createRequest(server, { expireSec: 86400 })
        const early = await send(server, req, 100)
        clock.advance(HOUR)
        const late = await send(server, req, 100)
        clock.advance(RETENTION_SEC * 1000 - HOUR)
        // From that moment, before any cleanup run, the early upload is gone from the inbox.
        expect((await downloadFile(server, req, early.id)).status).toBe(410)
        const box = await inbox(server, req)
        expect((box.body.uploads as Array<{ id: string }>).map((u) => u.id)).toEqual([late.id])
        const report = await server.service.cleanup.runOnce()
        expect(report.requestUploadsRemoved).toBe(1)
        expect(await committedBlobs(server)).not.toContain(early.id)
        expect((await downloadFile(server, req, early.id)).status).toBe(404)
        expect((await inbox(server, req)).body).toMatchObject({ usedUploads: 2, usedBytes: 200 })
        expect((await downloadFile(server, req, late.id)).status).toBe(200)
      })

      it('removes used-up uploads, then requests that ended a retention period ago', async () => {
        const req = await createRequest(server, { expireSec: 3600, downloads: 1 })
        const sent = await send(server, req, 100)
        expect((await downloadFile(server, req, sent.id)).status).toBe(200)
        const report = await server.service.cleanup.runOnce()
        expect(report.requestUploadsRemoved).toBe(1)
        let waited = 0
        if (backend.name === 's3') {
          // The download handed out a presigned URL: the object outlives it (docs/api.md).
          expect(report.blobsHeld).toBe(1)
          expect(await committedBlobs(server)).toContain(sent.id)
          waited = server.service.config.s3!.presignedUrlExpirySec * 1000 + URL_HOLD_MARGIN_MS
          clock.advance(waited)
          expect((await server.service.cleanup.runOnce()).blobsRetried).toBe(1)
        }
        expect(await committedBlobs(server)).not.toContain(sent.id)
        clock.advance(HOUR + RETENTION_SEC * 1000 - 1 - waited)
        expect((await server.service.cleanup.runOnce()).requestsRemoved).toBe(0)
        expect((await inbox(server, req)).status).toBe(200)
        clock.advance(1)
        expect((await server.service.cleanup.runOnce()).requestsRemoved).toBeGreaterThanOrEqual(1)
        expect((await inbox(server, req)).status).toBe(404)
      })

      // Only files can be backdated; an S3 object's date is the time it was written.
      it.skipIf(backend.name === 's3')(
        'never sweeps the blob of a stored request upload as an orphan',
        async () => {
          const req = await createRequest(server)
          const sent = await send(server, req, 100)
          const old = (Date.now() - ORPHAN_GRACE_MS - HOUR) / 1000
          await utimes(join(server.dataDir, 'blobs', sent.id), old, old)
          await server.service.cleanup.runOnce()
          await server.service.cleanup.runOnce()
          const file = await downloadFile(server, req, sent.id)
          expect(file.status).toBe(200)
          expect(file.bytes.equals(sent.data)).toBe(true)
        },
      )
    })
  })
}

/** The (key, IP) pairs the server's lockout remembers, in memory or in the database. */
async function lockoutEntries(server: TestServer): Promise<number> {
  const { lockout } = server.service.services
  if (lockout instanceof MemoryLockout) return lockout.size
  const [row] = await querySql<{ n: number }>(
    server.service.db,
    'select count(*) as n from lockouts',
  )
  return Number(row?.n)
}
