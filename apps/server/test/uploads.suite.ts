/**
 * File uploads over HTTP against the real server: single request, chunked, and the routes on
 * stored uploads (spec: Endpoints, File upload states, Limits), for one storage backend.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { truncate } from 'node:fs/promises'
import { request } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { blobFiles, followDownload, type Backend } from './backends.js'
import {
  errorCapturingLogger,
  manualClock,
  randomToken,
  requestHead,
  startTestServer,
  uploadHeaders,
  type TestServer,
} from './harness.js'
import { databaseBytes, querySql } from './dialects.js'

export const MiB = 1024 * 1024

export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>
}

interface Uploaded {
  id: string
  authToken: string
  ownerToken: string
  body: Uint8Array
}

async function uploadSingle(
  server: TestServer,
  size: number,
  overrides: Record<string, string | undefined> = {},
): Promise<Uploaded> {
  const body = randomBytes(size)
  const headers = uploadHeaders(size, overrides, 'Content-Length')
  const res = await fetch(`${server.url}/api/upload`, { method: 'POST', headers, body })
  const answer = await json(res)
  expect(res.status, JSON.stringify(answer)).toBe(200)
  return {
    id: answer.id as string,
    authToken: headers['X-Auth-Token']!,
    ownerToken: headers['X-Owner-Token']!,
    body,
  }
}

export async function initChunked(
  server: TestServer,
  size: number,
  overrides: Record<string, string | undefined> = {},
) {
  const headers = uploadHeaders(size, overrides)
  const res = await fetch(`${server.url}/api/upload/init`, { method: 'POST', headers })
  const answer = await json(res)
  expect(res.status, JSON.stringify(answer)).toBe(201)
  return {
    id: answer.id as string,
    authToken: headers['X-Auth-Token']!,
    ownerToken: headers['X-Owner-Token']!,
  }
}

export function sendChunk(
  server: TestServer,
  id: string,
  index: number | string,
  bytes: Uint8Array<ArrayBuffer>,
) {
  return fetch(`${server.url}/api/upload/${id}/chunk?index=${index}`, {
    method: 'POST',
    body: bytes,
  })
}

function finalize(server: TestServer, id: string, ownerToken: string) {
  return fetch(`${server.url}/api/upload/${id}/finalize`, {
    method: 'POST',
    headers: { 'X-Owner-Token': ownerToken },
  })
}

async function download(server: TestServer, id: string, authToken: string): Promise<Response> {
  return followDownload(
    server,
    await fetch(`${server.url}/api/download/${id}`, { headers: { 'X-Auth-Token': authToken } }),
  )
}

/** Saves random metadata on a stored upload with its owner token; returns what was saved. */
async function saveMeta(server: TestServer, up: Uploaded) {
  const meta = {
    encryptedMeta: randomBytes(1040).toString('base64'),
    nonce: randomBytes(12).toString('base64'),
  }
  const res = await fetch(`${server.url}/api/meta/${up.id}`, {
    method: 'POST',
    headers: { 'X-Owner-Token': up.ownerToken, 'Content-Type': 'application/json' },
    body: JSON.stringify(meta),
  })
  expect(res.status).toBe(200)
  return meta
}

/** Headers of a password-protected upload. */
function protectedHeaders(): Record<string, string> {
  return {
    'X-Has-Password': 'true',
    'X-Password-Salt': randomBytes(16).toString('base64url'),
    'X-Password-Algo': 'argon2id-v2',
  }
}

export function uploadsSuite(backend: Backend): void {
  describe(`uploads on ${backend.name}`, () => {
    let server: TestServer
    const clock = manualClock()

    beforeAll(async () => {
      server = await startTestServer({
        clock,
        env: {
          ...backend.env(),
          FILE_MAX_SIZE: '64MB',
          FILE_DOWNLOAD_OPTIONS: '1,2,5,10',
          PASSWORD_MAX_ATTEMPTS: '3',
        },
      })
    })
    afterAll(() => server.close())

    describe('POST /api/upload (single request)', () => {
      it('logs no error when a client goes away in the middle of its body, and keeps nothing', async () => {
        const { logger, errors } = errorCapturingLogger()
        const own = await startTestServer({ env: backend.env(), logger })
        try {
          const headers = uploadHeaders(MiB, {}, 'Content-Length')
          const head = requestHead('POST', '/api/upload', headers)
          await new Promise<void>((resolve, reject) => {
            const socket = connect(Number(new URL(own.url).port), '127.0.0.1', () => {
              socket.write(Buffer.concat([Buffer.from(head), randomBytes(1000)]))
              setTimeout(() => socket.destroy(), 100)
            })
            socket.once('close', () => resolve())
            socket.once('error', reject)
          })
          await new Promise((resolve) => setTimeout(resolve, 300))
          expect(errors).toEqual([])
          const [row] = await querySql<{ n: number }>(
            own.service.db,
            'SELECT count(*) AS n FROM uploads',
          )
          expect(Number(row?.n)).toBe(0)
        } finally {
          await own.close()
        }
      })

      it('keeps no upload whose client cannot learn its id: a body past its Content-Length', async () => {
        // Node drops such a connection as a malformed next request, so the client never learns
        // the id: an upload kept anyway would be one nobody owns.
        const count = async () =>
          Number(
            (
              await querySql<{ n: number }>(server.service.db, 'SELECT count(*) AS n FROM uploads')
            )[0]?.n,
          )
        const before = await count()
        const headers = uploadHeaders(100, {}, 'Content-Length')
        const head = requestHead('POST', '/api/upload', headers)
        const answered = await new Promise<string>((resolve, reject) => {
          let text = ''
          const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
            // The surplus arrives while the server stores the declared bytes.
            socket.write(Buffer.concat([Buffer.from(head), randomBytes(100)]))
            setTimeout(() => socket.write(randomBytes(50)), 1)
          })
          socket.setEncoding('utf8')
          socket.on('data', (chunk: string) => (text += chunk))
          socket.once('close', () => resolve(text))
          socket.once('error', reject)
        })
        await new Promise((resolve) => setTimeout(resolve, 200))
        // The invariant: an upload stays exactly when its client got the answer with its id.
        const gotId = /^HTTP\/1\.1 200/.test(answered)
        expect(await count()).toBe(gotId ? before + 1 : before)
      })

      it('stores the body and serves it byte for byte with the spec headers', async () => {
        const up = await uploadSingle(server, 3 * MiB + 17, { 'X-File-Count': '3' })
        const info = await json(await fetch(`${server.url}/api/info/${up.id}`))
        expect(info).toMatchObject({
          id: up.id,
          size: 3 * MiB + 17,
          hasPassword: false,
          fileCount: 3,
        })
        expect(info.encryptedMeta).toBeNull()
        const res = await download(server, up.id, up.authToken)
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe('application/octet-stream')
        expect(res.headers.get('content-length')).toBe(String(3 * MiB + 17))
        expect(res.headers.get('cache-control')).toBe('no-store')
        expect(res.headers.get('x-file-count')).toBe('3')
        expect(Buffer.from(await res.arrayBuffer()).equals(up.body)).toBe(true)
      })

      it('answers the share url without the key', async () => {
        const headers = uploadHeaders(10, {}, 'Content-Length')
        const res = await fetch(`${server.url}/api/upload`, {
          method: 'POST',
          headers,
          body: randomBytes(10),
        })
        const answer = await json(res)
        expect(res.status, JSON.stringify(answer)).toBe(200)
        expect(answer.url).toBe(`${server.service.config.baseUrl}/d/${answer.id as string}`)
      })

      it('refuses a declared size over FILE_MAX_SIZE with 413 and stores nothing', async () => {
        const before = await blobFiles(server)
        const res = await fetch(`${server.url}/api/upload`, {
          method: 'POST',
          headers: uploadHeaders(64 * MiB + 1, {}, 'Content-Length'),
          body: randomBytes(64 * MiB + 1),
        }).catch((error: unknown) => error)
        if (res instanceof Response) {
          expect(res.status).toBe(413)
          expect(await json(res)).toEqual({ error: 'File size exceeds maximum allowed size' })
        }
        expect(await blobFiles(server)).toEqual(before)
      })

      it('answers 413 for a declared size too large even to be a safe integer', async () => {
        const res = await fetch(`${server.url}/api/upload/init`, {
          method: 'POST',
          headers: uploadHeaders(1, { 'X-Content-Length': '99999999999999999999' }),
        })
        expect(res.status).toBe(413)
        expect(await json(res)).toEqual({ error: 'File size exceeds maximum allowed size' })
      })

      it('leaves nothing when the body is shorter than Content-Length', async () => {
        const before = await blobFiles(server)
        const url = new URL(`${server.url}/api/upload`)
        await new Promise<void>((resolve) => {
          const req = request(url, {
            method: 'POST',
            headers: uploadHeaders(100_000, {}, 'Content-Length'),
          })
          req.on('error', () => resolve())
          req.on('response', () => resolve())
          req.write(randomBytes(50_000), () => setTimeout(() => req.destroy(), 100))
        })
        await new Promise((resolve) => setTimeout(resolve, 200))
        expect(await blobFiles(server)).toEqual(before)
      })

      it.each([
        ['X-Auth-Token', undefined],
        ['X-Owner-Token', 'not base64url!'],
        ['X-Salt', randomToken().slice(0, 10)],
        ['X-Max-Downloads', '3'],
        ['X-Max-Downloads', '01'],
        ['X-Max-Downloads', '1.0'],
        ['X-Max-Downloads', '1, 1'],
        ['X-Expire-Sec', '-86400'],
        ['X-File-Count', '0'],
        ['X-File-Count', '1001'],
        ['X-Has-Password', 'TRUE'],
        ['X-Has-Password', undefined],
      ])('refuses %s=%j with 400 Invalid request', async (name, value) => {
        const res = await fetch(`${server.url}/api/upload`, {
          method: 'POST',
          headers: uploadHeaders(10, { [name]: value }, 'Content-Length'),
          body: randomBytes(10),
        })
        expect(res.status).toBe(400)
        const body = await json(res)
        expect(body.error).toBe('Invalid request')
        expect(Object.keys(body.details as object)).toContain(name.toLowerCase())
      })

      it('requires the password salt and algorithm when X-Has-Password is true', async () => {
        const missing = await fetch(`${server.url}/api/upload`, {
          method: 'POST',
          headers: uploadHeaders(10, { 'X-Has-Password': 'true' }, 'Content-Length'),
          body: randomBytes(10),
        })
        expect(missing.status).toBe(400)
        const up = await uploadSingle(server, 10, {
          'X-Has-Password': 'true',
          'X-Password-Salt': randomBytes(16).toString('base64url'),
          'X-Password-Algo': 'argon2id-v2',
        })
        const info = await json(await fetch(`${server.url}/api/info/${up.id}`))
        expect(info).toMatchObject({ hasPassword: true, passwordAlgo: 'argon2id-v2' })
      })
    })

    describe('chunked upload', () => {
      it('writes chunks that arrive out of order in index order', async () => {
        const parts = [randomBytes(MiB), randomBytes(MiB), randomBytes(12345)]
        const size = parts.reduce((n, p) => n + p.length, 0)
        const up = await initChunked(server, size)
        const answers = await Promise.all(
          [2, 0, 1].map((i) => sendChunk(server, up.id, i, parts[i]!)),
        )
        expect(answers.map((r) => r.status)).toEqual([200, 200, 200])
        // An early chunk is answered once held, so no answer need count every byte yet.
        const written = await Promise.all(answers.map(json))
        for (const { bytesWritten } of written) {
          expect(bytesWritten).toBeGreaterThanOrEqual(0)
          expect(bytesWritten).toBeLessThanOrEqual(size)
        }
        const done = await finalize(server, up.id, up.ownerToken)
        expect(done.status).toBe(200)
        expect(await json(done)).toEqual({
          id: up.id,
          url: `${server.service.config.baseUrl}/d/${up.id}`,
        })
        const res = await download(server, up.id, up.authToken)
        expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.concat(parts))).toBe(true)
      })

      it('is invisible until finalize', async () => {
        const up = await initChunked(server, 20)
        expect((await sendChunk(server, up.id, 0, randomBytes(20))).status).toBe(200)
        expect((await fetch(`${server.url}/api/info/${up.id}`)).status).toBe(404)
        expect(await json(await fetch(`${server.url}/api/exists/${up.id}`))).toEqual({
          exists: false,
        })
        expect((await download(server, up.id, up.authToken)).status).toBe(404)
        expect((await finalize(server, up.id, up.ownerToken)).status).toBe(200)
        expect(await json(await fetch(`${server.url}/api/exists/${up.id}`))).toEqual({
          exists: true,
        })
      })

      it('answers 429 beyond the out-of-order bound and refuses duplicates and excess bytes', async () => {
        const up = await initChunked(server, 10 * 100)
        // Index 0 has not arrived; FILE_UPLOAD_CONCURRENT_CHUNKS (3) early chunks may wait for it.
        const waiting = await Promise.all(
          [1, 2, 3].map((i) => sendChunk(server, up.id, i, randomBytes(100))),
        )
        const over = await sendChunk(server, up.id, 4, randomBytes(100))
        expect(over.status).toBe(429)
        expect(await json(over)).toEqual({ error: 'Too many out-of-order chunks buffered' })
        const far = await sendChunk(server, up.id, 50, randomBytes(100))
        expect(far.status).toBe(429)
        expect((await sendChunk(server, up.id, 2, randomBytes(100))).status).toBe(400)
        expect((await sendChunk(server, up.id, 0, randomBytes(100))).status).toBe(200)
        expect(waiting.map((r) => r.status)).toEqual([200, 200, 200])
        expect((await sendChunk(server, up.id, 1, randomBytes(100))).status).toBe(400)
        const past = await sendChunk(server, up.id, 4, randomBytes(700))
        expect(past.status).toBe(400)
        expect(await json(past)).toEqual({
          error: 'Body size does not match declared content length',
        })
      })

      it('refuses empty and malformed chunk indexes', async () => {
        const up = await initChunked(server, 100)
        expect((await sendChunk(server, up.id, 0, new Uint8Array(0))).status).toBe(400)
        for (const bad of ['-1', '1.5', 'x', '01', '']) {
          expect((await sendChunk(server, up.id, bad, randomBytes(10))).status).toBe(400)
        }
        expect(
          (await fetch(`${server.url}/api/upload/${up.id}/chunk`, { method: 'POST', body: 'x' }))
            .status,
        ).toBe(400)
      })

      it('ends the session with 400 when finalize finds another total, leaving nothing', async () => {
        const before = await blobFiles(server)
        const up = await initChunked(server, 1000)
        expect((await sendChunk(server, up.id, 0, randomBytes(999))).status).toBe(200)
        const res = await finalize(server, up.id, up.ownerToken)
        expect(res.status).toBe(400)
        expect(await json(res)).toEqual({
          error: 'Body size does not match declared content length',
        })
        expect((await sendChunk(server, up.id, 1, randomBytes(1))).status).toBe(404)
        expect((await finalize(server, up.id, up.ownerToken)).status).toBe(404)
        expect(await blobFiles(server)).toEqual(before)
      })

      it('drops a chunk held for its turn when the session ends, leaving nothing', async () => {
        const before = await blobFiles(server)
        const up = await initChunked(server, 1000)
        // Index 0 never arrives: index 1 is answered at once and held until the failed finalize.
        const held = await sendChunk(server, up.id, 1, randomBytes(10))
        expect(held.status).toBe(200)
        expect(await json(held)).toEqual({ bytesWritten: 0 })
        expect((await finalize(server, up.id, up.ownerToken)).status).toBe(400)
        const after = await sendChunk(server, up.id, 0, randomBytes(10))
        expect(after.status).toBe(404)
        expect(await json(after)).toEqual({ error: 'Upload not found' })
        expect(await blobFiles(server)).toEqual(before)
      })

      it('needs the owner token to finalize, and keeps the session after a wrong one', async () => {
        const up = await initChunked(server, 10)
        await sendChunk(server, up.id, 0, randomBytes(10))
        const wrong = await finalize(server, up.id, randomToken())
        expect(wrong.status).toBe(401)
        expect(await json(wrong)).toEqual({ error: 'Invalid or missing owner token' })
        expect((await finalize(server, up.id, up.ownerToken)).status).toBe(200)
      })

      it('cancels an unfinished session with DELETE and the owner token', async () => {
        const before = await blobFiles(server)
        const up = await initChunked(server, 100)
        await sendChunk(server, up.id, 0, randomBytes(50))
        const del = (token: string) =>
          fetch(`${server.url}/api/upload/${up.id}`, {
            method: 'DELETE',
            headers: { 'X-Owner-Token': token },
          })
        expect((await del(randomToken())).status).toBe(401)
        expect((await del(up.ownerToken)).status).toBe(200)
        expect((await sendChunk(server, up.id, 1, randomBytes(50))).status).toBe(404)
        expect(await blobFiles(server)).toEqual(before)
      })
    })

    describe('downloads', () => {
      it('counts atomically: 50 concurrent downloads of maxDownloads 5 give exactly 5 successes', async () => {
        const up = await uploadSingle(server, 1000, { 'X-Max-Downloads': '5' })
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => download(server, up.id, up.authToken)),
        )
        const statuses = answers.map((r) => r.status)
        await Promise.all(answers.map((r) => r.arrayBuffer()))
        expect(statuses.filter((s) => s === 200)).toHaveLength(5)
        expect(statuses.filter((s) => s === 410)).toHaveLength(45)
        const gone = await fetch(`${server.url}/api/info/${up.id}`)
        expect(gone.status).toBe(410)
        expect(await json(gone)).toEqual({ error: 'Upload expired or download limit reached' })
      })

      it('serves several downloads at once, each byte for byte with the headers of every answer', async () => {
        const ups = await Promise.all(
          [5 * MiB + 3, 2 * MiB, 1].map((size) => uploadSingle(server, size)),
        )
        const answers = await Promise.all(ups.map((up) => download(server, up.id, up.authToken)))
        for (const [i, res] of answers.entries()) {
          expect(res.status).toBe(200)
          expect(res.headers.get('content-length')).toBe(String(ups[i]!.body.length))
          expect(Buffer.from(await res.arrayBuffer()).equals(ups[i]!.body)).toBe(true)
        }
        // The ciphertext itself comes from S3 there; the server's own answer carries these.
        const direct = await fetch(`${server.url}/api/download/${ups[2]!.id}`, {
          headers: { 'X-Auth-Token': ups[2]!.authToken },
        })
        expect(direct.headers.get('x-frame-options')).toBe('DENY')
        expect(direct.headers.get('x-content-type-options')).toBe('nosniff')
        await direct.arrayBuffer()
      })

      it('keeps serving after a client goes away in the middle of a download', async () => {
        const up = await uploadSingle(server, 16 * MiB, { 'X-Max-Downloads': '2' })
        await new Promise<void>((resolve, reject) => {
          const url = new URL(`/api/download/${up.id}`, server.url)
          const req = request(url, { headers: { 'X-Auth-Token': up.authToken } }, (res) => {
            expect(res.statusCode).toBe(200)
            res.once('data', () => {
              req.destroy()
              resolve()
            })
          })
          req.on('error', (error) => (req.destroyed ? undefined : reject(error)))
          req.end()
        })
        const res = await download(server, up.id, up.authToken)
        expect(res.status).toBe(200)
        expect(Buffer.from(await res.arrayBuffer()).equals(up.body)).toBe(true)
      })

      // Property: damaged storage is reported to the client at once, never as a stalled body,
      // and to the operator in the log.
      it.runIf(backend.name === 'filesystem')(
        'cuts a download off at once when the stored blob is shorter than recorded, and logs it',
        async () => {
          const { logger, errors } = errorCapturingLogger()
          const own = await startTestServer({ env: backend.env(), logger })
          try {
            const up = await uploadSingle(own, 3 * MiB, { 'X-Max-Downloads': '2' })
            const [key, ...others] = (await blobFiles(own)).committed
            expect(others).toEqual([])
            await truncate(join(own.dataDir, 'blobs', key!), MiB)
            const started = Date.now()
            const outcome = await new Promise<{ received: number; complete: boolean }>(
              (resolve, reject) => {
                const url = new URL(`/api/download/${up.id}`, own.url)
                const req = request(url, { headers: { 'X-Auth-Token': up.authToken } }, (res) => {
                  expect(res.statusCode).toBe(200)
                  expect(res.headers['content-length']).toBe(String(3 * MiB))
                  let received = 0
                  res.on('data', (piece: Buffer) => (received += piece.length))
                  res.on('error', () => undefined)
                  res.on('close', () => resolve({ received, complete: res.complete }))
                })
                req.on('error', (error) => (req.destroyed ? undefined : reject(error)))
                req.end()
              },
            )
            expect(outcome).toEqual({ received: MiB, complete: false })
            // An answer merely ended short would hold the connection until the server's
            // keep-alive timeout (5 s) closed it; the cut comes long before that.
            expect(Date.now() - started).toBeLessThan(2_500)
            await vi.waitFor(() => expect(errors).toHaveLength(1))
            expect(errors[0]).toContain('a download was cut off after its answer began')
            expect(errors[0]).toContain(`does not have its recorded length of ${3 * MiB} bytes`)
            expect(errors[0]).not.toContain(up.authToken)
          } finally {
            await own.close()
          }
        },
      )

      it('refuses HEAD with 405 before counting: the only download stays for the GET', async () => {
        // Property: a HEAD (a link checker, a probing proxy) never uses up a download.
        const up = await uploadSingle(server, 3 * MiB, { 'X-Max-Downloads': '1' })
        const res = await fetch(`${server.url}/api/download/${up.id}`, {
          method: 'HEAD',
          headers: { 'X-Auth-Token': up.authToken },
        })
        expect(res.status).toBe(405)
        expect(res.headers.get('allow')).toBe('GET')
        const res2 = await download(server, up.id, up.authToken)
        expect(res2.status).toBe(200)
        expect(Buffer.from(await res2.arrayBuffer()).equals(up.body)).toBe(true)
      })

      it('answers 401 for a missing or wrong auth token without counting', async () => {
        const up = await uploadSingle(server, 10)
        for (const headers of [{}, { 'X-Auth-Token': randomToken() }, { 'X-Auth-Token': '' }]) {
          const res = await fetch(`${server.url}/api/download/${up.id}`, { headers })
          expect(res.status).toBe(401)
          expect(await json(res)).toEqual({ error: 'Invalid or missing auth token' })
        }
        expect((await download(server, up.id, up.authToken)).status).toBe(200)
      })

      it('answers 410 once expired, before any cleanup', async () => {
        const up = await uploadSingle(server, 10, { 'X-Expire-Sec': '300' })
        clock.advance(301_000)
        expect((await download(server, up.id, up.authToken)).status).toBe(410)
        expect((await fetch(`${server.url}/api/info/${up.id}`)).status).toBe(410)
        expect(await json(await fetch(`${server.url}/api/exists/${up.id}`))).toEqual({
          exists: false,
        })
      })

      it('answers 404 for unknown ids, non-UUIDs and path tricks', async () => {
        const ids = [
          '6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51',
          'abc',
          '..%2F..%2Fetc%2Fpasswd',
          '%2E%2E',
          'AAAAAAAA-8D3A-4C55-9A4E-2F0D8B7C6A51',
        ]
        for (const id of ids) {
          for (const path of [`/api/info/${id}`, `/api/download/${id}`]) {
            const res = await fetch(`${server.url}${path}`, {
              headers: { 'X-Auth-Token': randomToken() },
            })
            expect(res.status, path).toBe(404)
          }
        }
      })
    })

    describe('POST /api/meta/:id', () => {
      it('answers 404 Upload not found for an unknown or unfinished upload', async () => {
        const body = JSON.stringify({ encryptedMeta: 'AAAA', nonce: 'AAAA' })
        const unfinished = await initChunked(server, 100)
        for (const id of [randomUUID(), 'not-a-uuid', unfinished.id]) {
          const res = await fetch(`${server.url}/api/meta/${id}`, {
            method: 'POST',
            headers: { 'X-Owner-Token': unfinished.ownerToken, 'Content-Type': 'application/json' },
            body,
          })
          expect(res.status, id).toBe(404)
          expect(await json(res)).toEqual({ error: 'Upload not found' })
        }
      })

      it('sets metadata once with the owner token', async () => {
        const up = await uploadSingle(server, 10)
        const meta = {
          encryptedMeta: randomBytes(1040).toString('base64'),
          nonce: randomBytes(12).toString('base64'),
        }
        const post = (token: string, body: unknown) =>
          fetch(`${server.url}/api/meta/${up.id}`, {
            method: 'POST',
            headers: { 'X-Owner-Token': token, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          })
        expect((await post(randomToken(), meta)).status).toBe(401)
        expect((await post(up.ownerToken, { ...meta, nonce: '' })).status).toBe(400)
        expect((await post(up.ownerToken, { ...meta, encryptedMeta: 'not base64!' })).status).toBe(
          400,
        )
        expect((await post(up.ownerToken, meta)).status).toBe(200)
        const again = await post(up.ownerToken, meta)
        expect(again.status).toBe(409)
        expect(await json(again)).toEqual({ error: 'Metadata already set' })
        const info = await json(await fetch(`${server.url}/api/info/${up.id}`))
        expect(info).toMatchObject(meta)
      })

      it('refuses malformed JSON and an oversized body', async () => {
        const up = await uploadSingle(server, 10)
        const post = (body: string) =>
          fetch(`${server.url}/api/meta/${up.id}`, {
            method: 'POST',
            headers: { 'X-Owner-Token': up.ownerToken, 'Content-Type': 'application/json' },
            body,
          })
        expect((await post('{')).status).toBe(400)
        expect((await post('x'.repeat(300_000))).status).toBe(413)
      })
    })

    describe('POST /api/password/:id', () => {
      it('checks the auth token of a protected upload and locks out after repeated failures', async () => {
        const up = await uploadSingle(server, 10, {
          'X-Has-Password': 'true',
          'X-Password-Salt': randomBytes(16).toString('base64url'),
          'X-Password-Algo': 'argon2id-v2',
        })
        const check = (token: string) =>
          fetch(`${server.url}/api/password/${up.id}`, {
            method: 'POST',
            headers: { 'X-Auth-Token': token },
          })
        expect((await check(up.authToken)).status).toBe(200)
        for (let i = 0; i < 3; i++) {
          const wrong = await check(randomToken())
          expect(wrong.status).toBe(401)
        }
        const locked = await check(up.authToken)
        expect(locked.status).toBe(429)
        expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
      })

      it('keeps the metadata of a protected upload out of info; an unprotected one keeps it', async () => {
        // Security: info gives a link holder no ciphertext to test password guesses against offline.
        const locked = await uploadSingle(server, 10, protectedHeaders())
        const open = await uploadSingle(server, 10)
        await saveMeta(server, locked)
        const openMeta = await saveMeta(server, open)
        const lockedInfo = await json(await fetch(`${server.url}/api/info/${locked.id}`))
        expect(Object.keys(lockedInfo).sort()).toEqual(
          [
            'createdAt',
            'downloadCount',
            'expiresAt',
            'fileCount',
            'hasPassword',
            'id',
            'maxDownloads',
            'passwordAlgo',
            'passwordSalt',
            'salt',
            'size',
          ].sort(),
        )
        const openInfo = await json(await fetch(`${server.url}/api/info/${open.id}`))
        expect(openInfo).toMatchObject({ hasPassword: false, ...openMeta })
      })

      it('answers the metadata from the password route to the right token only, counting wrong ones', async () => {
        // Security: the metadata of a protected upload is served only after the auth token is proven.
        const up = await uploadSingle(server, 10, protectedHeaders())
        const check = (token: string) =>
          fetch(`${server.url}/api/password/${up.id}`, {
            method: 'POST',
            headers: { 'X-Auth-Token': token },
          })
        expect(await json(await check(up.authToken))).toEqual({
          ok: true,
          encryptedMeta: null,
          nonce: null,
        })
        const meta = await saveMeta(server, up)
        for (let i = 0; i < 2; i++) {
          const wrong = await check(randomToken())
          expect(wrong.status).toBe(401)
          expect(await json(wrong)).toEqual({ error: 'Invalid password' })
        }
        const right = await check(up.authToken)
        expect(right.status).toBe(200)
        expect(await json(right)).toEqual({ ok: true, ...meta })
        // The success cleared the failures; three more wrong tokens lock even the right one out.
        for (let i = 0; i < 3; i++) expect((await check(randomToken())).status).toBe(401)
        const blocked = await check(up.authToken)
        expect(blocked.status).toBe(429)
        expect(await json(blocked)).not.toHaveProperty('encryptedMeta')
      })

      it('counts wrong tokens sent to the download route toward the same lockout', async () => {
        // Security: the download route is no way around PASSWORD_MAX_ATTEMPTS.
        const up = await uploadSingle(server, 10, {
          'X-Has-Password': 'true',
          'X-Password-Salt': randomBytes(16).toString('base64url'),
          'X-Password-Algo': 'argon2id-v2',
          'X-Max-Downloads': '5',
        })
        // Malformed tokens are no password guesses and count for nothing.
        expect((await download(server, up.id, 'not a token!')).status).toBe(401)
        for (let i = 0; i < 3; i++) {
          expect((await download(server, up.id, randomToken())).status).toBe(401)
        }
        const locked = await download(server, up.id, up.authToken)
        expect(locked.status).toBe(429)
        expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
        const check = await fetch(`${server.url}/api/password/${up.id}`, {
          method: 'POST',
          headers: { 'X-Auth-Token': up.authToken },
        })
        expect(check.status).toBe(429)
      })

      it('lets a right token through the download route without a lockout on unprotected uploads', async () => {
        const up = await uploadSingle(server, 10, { 'X-Max-Downloads': '5' })
        for (let i = 0; i < 4; i++) {
          expect((await download(server, up.id, randomToken())).status).toBe(401)
        }
        expect((await download(server, up.id, up.authToken)).status).toBe(200)
      })

      it('answers 400 for an upload without a password', async () => {
        const up = await uploadSingle(server, 10)
        const res = await fetch(`${server.url}/api/password/${up.id}`, {
          method: 'POST',
          headers: { 'X-Auth-Token': up.authToken },
        })
        expect(res.status).toBe(400)
      })
    })

    describe('DELETE /api/upload/:id', () => {
      it('removes the record, then the blob; the id answers 404 everywhere', async () => {
        const up = await uploadSingle(server, 1000)
        const del = (token: string) =>
          fetch(`${server.url}/api/upload/${up.id}`, {
            method: 'DELETE',
            headers: { 'X-Owner-Token': token },
          })
        const wrong = await del(randomToken())
        expect(wrong.status).toBe(401)
        expect(await json(wrong)).toEqual({ error: 'Invalid or missing owner token' })
        const ok = await del(up.ownerToken)
        expect(ok.status).toBe(200)
        expect(await json(ok)).toEqual({ ok: true })
        expect((await fetch(`${server.url}/api/info/${up.id}`)).status).toBe(404)
        expect((await download(server, up.id, up.authToken)).status).toBe(404)
        expect((await del(up.ownerToken)).status).toBe(404)
        expect((await blobFiles(server)).committed).not.toContain(up.id)
      })
    })

    describe('stored secrets', () => {
      it('keeps no bearer token in clear in the database', async () => {
        const up = await uploadSingle(server, 10)
        const file = await databaseBytes(server.service.db, server.dataDir)
        for (const token of [up.authToken, up.ownerToken]) {
          const bytes = Buffer.from(token, 'base64url')
          expect(file.includes(Buffer.from(token))).toBe(false)
          expect(file.includes(bytes)).toBe(false)
          // PostgreSQL's dump writes bytea as hex.
          expect(file.includes(Buffer.from(bytes.toString('hex')))).toBe(false)
        }
      })
    })
  })
}
