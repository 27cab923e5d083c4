/** The note routes over real HTTP: every status of the spec's note routes and note states. */
import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import {
  ERROR_MESSAGES,
  PASSWORD_ALGO,
  decryptNote,
  deriveNoteKeys,
  encryptNote,
  fromBase64,
  fromBase64Url,
  generateNoteSalt,
  generateSecret,
  toBase64,
  toBase64Url,
} from '@fileshare/protocol'
import { Hono } from 'hono'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import type { AppEnv } from '../src/app-env.js'
import { loadConfig } from '../src/config.js'
import { noteBody, startTestServer } from './harness.js'
import type { Db } from '../src/db/client.js'
import { databaseBytes, openTestDatabase } from './dialects.js'
import { HttpError } from '../src/http-error.js'
import { listen, type RunningServer } from '../src/listen.js'
import { notesRoutes } from '../src/routes/notes.js'
import { MemoryLockout } from '../src/limits/lockout.js'
import { NotesService } from '../src/notes/notes.js'
import { Tombstones } from '../src/records/tombstones.js'

const config = loadConfig({ NOTE_MAX_SIZE: '4096', PASSWORD_MAX_ATTEMPTS: '3' })
const MAX_CONTENT = config.noteMaxSize + 256
const IP = '127.0.0.1'

/** The note routes under `/api` with an error handler that renders HttpError as the app does. */
function notesApp(notes: NotesService): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  app.route(
    '/api',
    notesRoutes({
      notes,
      ipOf: () => IP,
      bodyLimit: Math.ceil((MAX_CONTENT * 4) / 3) + 4096,
    }),
  )
  app.onError((err, c) => {
    if (!(err instanceof HttpError)) throw err
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value)
    return c.json(
      err.details ? { error: err.message, details: err.details } : { error: err.message },
      err.status,
    )
  })
  return app
}

let dataDir: string
let db: Db
let server: RunningServer
let clock: number

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fileshare-notes-http-'))
  db = await openTestDatabase(dataDir)
  const now = () => clock
  const lockout = new MemoryLockout({
    maxAttempts: config.passwordMaxAttempts,
    lockoutMs: config.passwordLockoutMs,
    now,
  })
  const notes = new NotesService({ config, db, lockout, tombstones: new Tombstones(db), now })
  server = await listen(notesApp(notes), { port: 0, host: '127.0.0.1' })
})

afterAll(async () => {
  await server.close()
  await db.close()
  await rm(dataDir, { recursive: true, force: true })
})

beforeEach(() => {
  clock = Date.now()
})

interface Answer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
    init.headers = { 'content-type': 'application/json', ...headers }
  }
  const res = await fetch(`${server.url}/api${path}`, init)
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  }
}

function passwordBody(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return noteBody({
    hasPassword: true,
    passwordSalt: toBase64Url(randomBytes(16)),
    passwordAlgo: PASSWORD_ALGO,
    ...changes,
  })
}

/** Creates a note and answers its id with the body that created it. */
async function createNote(
  body = noteBody(),
): Promise<{ id: string; body: Record<string, unknown> }> {
  const res = await call('POST', '/note', body)
  expect(res.status).toBe(201)
  return { id: res.body.id as string, body }
}

const UNKNOWN_ID = '6f1c1f52-7a53-4a8e-9a4e-0c2d3b1a9e77'

describe('POST /api/note', () => {
  it('answers 201 with id and expiresAt', async () => {
    const res = await call('POST', '/note', noteBody({ expireSec: 300 }))
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(String),
      expiresAt: new Date(clock + 300_000).toISOString(),
    })
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  })

  it.each([
    ['salt', toBase64Url(randomBytes(15))],
    ['salt', toBase64Url(randomBytes(32))],
    ['salt', 'bad*salt'],
    ['nonce', toBase64(randomBytes(11))],
    ['nonce', toBase64(randomBytes(16))],
    ['nonce', 'AAAA*AAAAAAAAAAA'],
    ['encryptedContent', 'not base64!'],
    ['ownerToken', 'x'],
    ['authToken', 42],
    ['contentType', 'html'],
    ['maxViews', 4],
    ['expireSec', 61],
    ['hasPassword', 'no'],
    ['unknownField', true],
  ])('answers 400 with details for %s = %j', async (field, value) => {
    const res = await call('POST', '/note', noteBody({ [field]: value }))
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      error: ERROR_MESSAGES.invalidRequest,
      details: { [field]: expect.any(String) },
    })
  })

  it('answers 400 when a password note lacks passwordSalt and passwordAlgo', async () => {
    const res = await call('POST', '/note', noteBody({ hasPassword: true }))
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.details as object).sort()).toEqual(['passwordAlgo', 'passwordSalt'])
  })

  it('answers 400 for malformed JSON and 415 for a body not declared JSON', async () => {
    const malformed = await call('POST', '/note', '{"salt":')
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual({
      error: ERROR_MESSAGES.invalidRequest,
      details: { body: 'must be JSON' },
    })
    const res = await fetch(`${server.url}/api/note`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(noteBody()),
    })
    expect(res.status).toBe(415)
    expect(await res.json()).toEqual({ error: ERROR_MESSAGES.notJson })
  })

  it('accepts application/json with a charset', async () => {
    const res = await fetch(`${server.url}/api/note`, {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify(noteBody()),
    })
    expect(res.status).toBe(201)
  })

  it('answers 413 for content one byte over NOTE_MAX_SIZE + 256 and 201 at the limit', async () => {
    const atLimit = await call(
      'POST',
      '/note',
      noteBody({ encryptedContent: toBase64(randomBytes(MAX_CONTENT)) }),
    )
    expect(atLimit.status).toBe(201)
    const over = await call(
      'POST',
      '/note',
      noteBody({ encryptedContent: toBase64(randomBytes(MAX_CONTENT + 1)) }),
    )
    expect(over.status).toBe(413)
    expect(over.body).toEqual({ error: ERROR_MESSAGES.noteTooLarge })
  })

  it('answers 413 for a body over the body limit, with or without Content-Length', async () => {
    // Unfinished JSON: only the body limit can answer 413 here; the parser would answer 400.
    const huge = `{"encryptedContent":"${'A'.repeat(MAX_CONTENT * 3)}`
    const declared = await call('POST', '/note', huge)
    expect(declared.status).toBe(413)
    expect(declared.body).toEqual({ error: ERROR_MESSAGES.noteTooLarge })
    const bytes = new TextEncoder().encode(huge)
    const streamed = await fetch(`${server.url}/api/note`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024))
          controller.close()
        },
      }),
      duplex: 'half',
    } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(await streamed.json()).toEqual({ error: ERROR_MESSAGES.noteTooLarge })
  })
})

describe('GET /api/note/:id', () => {
  it('answers 200 with the public fields, never the ciphertext', async () => {
    const { id, body } = await createNote(passwordBody({ contentType: 'code', maxViews: 3 }))
    const res = await call('GET', `/note/${id}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body).toEqual({
      id,
      contentType: 'code',
      hasPassword: true,
      passwordAlgo: PASSWORD_ALGO,
      passwordSalt: body.passwordSalt,
      salt: body.salt,
      maxViews: 3,
      viewCount: 0,
      expiresAt: new Date(clock + 3_600_000).toISOString(),
      createdAt: new Date(clock).toISOString(),
    })
  })

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const res = await call('GET', `/note/${id}`)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: ERROR_MESSAGES.noteNotFound })
    }
  })

  it('answers 410 Note has expired after expiresAt', async () => {
    const { id } = await createNote(noteBody({ expireSec: 300 }))
    clock += 300_000
    const res = await call('GET', `/note/${id}`)
    expect(res.status).toBe(410)
    expect(res.body).toEqual({ error: ERROR_MESSAGES.noteExpired })
  })

  it('answers 410 View limit reached when exhausted', async () => {
    const { id, body } = await createNote(noteBody({ maxViews: 1 }))
    expect((await call('POST', `/note/${id}/view`, { authToken: body.authToken })).status).toBe(200)
    const res = await call('GET', `/note/${id}`)
    expect(res.status).toBe(410)
    expect(res.body).toEqual({ error: ERROR_MESSAGES.viewLimitReached })
  })
})

describe('POST /api/note/:id/view', () => {
  it('answers 200 with ciphertext, nonce and counts', async () => {
    const { id, body } = await createNote(noteBody({ maxViews: 2 }))
    const res = await call('POST', `/note/${id}/view`, { authToken: body.authToken })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body).toEqual({
      encryptedContent: body.encryptedContent,
      nonce: body.nonce,
      viewCount: 1,
      maxViews: 2,
    })
  })

  it('answers 401 Invalid auth token for a wrong or missing token', async () => {
    const { id } = await createNote()
    for (const viewBody of [{ authToken: toBase64Url(randomBytes(32)) }, {}]) {
      const res = await call('POST', `/note/${id}/view`, viewBody)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: ERROR_MESSAGES.invalidAuthToken })
    }
  })

  it('answers 410 when the limit is reached or the note expired', async () => {
    const { id, body } = await createNote(noteBody({ maxViews: 1, expireSec: 300 }))
    expect((await call('POST', `/note/${id}/view`, { authToken: body.authToken })).status).toBe(200)
    const exhausted = await call('POST', `/note/${id}/view`, { authToken: body.authToken })
    expect([exhausted.status, exhausted.body]).toEqual([
      410,
      { error: ERROR_MESSAGES.viewLimitReached },
    ])

    const other = await createNote(noteBody({ expireSec: 300 }))
    clock += 300_000
    const expired = await call('POST', `/note/${other.id}/view`, {
      authToken: other.body.authToken,
    })
    expect([expired.status, expired.body]).toEqual([410, { error: ERROR_MESSAGES.noteExpired }])
  })

  it('answers 400 for malformed JSON, 415 for another content type, 404 for an unknown id', async () => {
    const { id, body } = await createNote()
    expect((await call('POST', `/note/${id}/view`, '{')).status).toBe(400)
    const plain = await fetch(`${server.url}/api/note/${id}/view`, {
      method: 'POST',
      body: JSON.stringify({ authToken: body.authToken }),
    })
    expect(plain.status).toBe(415)
    expect(await plain.json()).toEqual({ error: ERROR_MESSAGES.notJson })
    expect(
      (await call('POST', `/note/${UNKNOWN_ID}/view`, { authToken: body.authToken })).status,
    ).toBe(404)
    expect((await call('GET', `/note/${id}`)).body.viewCount).toBe(0)
  })

  it('lets exactly maxViews of 50 concurrent views through', async () => {
    const { id, body } = await createNote(noteBody({ maxViews: 5 }))
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', `/note/${id}/view`, { authToken: body.authToken }),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(5)
    expect(statuses.filter((status) => status === 410)).toHaveLength(45)
    const counts = answers.filter((a) => a.status === 200).map((a) => a.body.viewCount)
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5])
  })
})

describe('POST /api/note/:id/password', () => {
  it('answers 200 { ok: true } without counting a view', async () => {
    const { id, body } = await createNote(passwordBody())
    const res = await call('POST', `/note/${id}/password`, { authToken: body.authToken })
    expect([res.status, res.body]).toEqual([200, { ok: true }])
    expect((await call('GET', `/note/${id}`)).body.viewCount).toBe(0)
  })

  it('answers 400 Note is not password-protected', async () => {
    const { id, body } = await createNote()
    const res = await call('POST', `/note/${id}/password`, { authToken: body.authToken })
    expect([res.status, res.body]).toEqual([
      400,
      { error: ERROR_MESSAGES.noteNotPasswordProtected },
    ])
  })

  it('answers 401 Invalid password for a wrong token', async () => {
    const { id } = await createNote(passwordBody())
    const res = await call('POST', `/note/${id}/password`, {
      authToken: toBase64Url(randomBytes(32)),
    })
    expect([res.status, res.body]).toEqual([401, { error: ERROR_MESSAGES.invalidPassword }])
  })

  it('answers 410 Note has expired for an expired note', async () => {
    const { id, body } = await createNote(passwordBody({ expireSec: 300 }))
    clock += 300_000
    const res = await call('POST', `/note/${id}/password`, { authToken: body.authToken })
    expect([res.status, res.body]).toEqual([410, { error: ERROR_MESSAGES.noteExpired }])
  })

  it('answers 429 with Retry-After after PASSWORD_MAX_ATTEMPTS failures, even for the right token', async () => {
    const { id, body } = await createNote(passwordBody())
    for (let i = 0; i < config.passwordMaxAttempts; i++) {
      const res = await call('POST', `/note/${id}/password`, {
        authToken: toBase64Url(randomBytes(32)),
      })
      expect(res.status).toBe(401)
    }
    for (const path of [`/note/${id}/password`, `/note/${id}/view`]) {
      const res = await call('POST', path, { authToken: body.authToken })
      expect(res.status, path).toBe(429)
      expect(res.body).toEqual({ error: ERROR_MESSAGES.tooManyAttempts })
      expect(res.headers.get('retry-after')).toBe(String(config.passwordLockoutMs / 1000))
    }
  })
})

describe('DELETE /api/note/:id', () => {
  it('answers 401 Invalid owner token for a wrong or missing token', async () => {
    const { id, body } = await createNote()
    for (const headers of [{}, { 'x-owner-token': body.authToken as string }]) {
      const res = await call('DELETE', `/note/${id}`, undefined, headers)
      expect([res.status, res.body]).toEqual([401, { error: ERROR_MESSAGES.invalidOwnerToken }])
    }
    expect((await call('GET', `/note/${id}`)).status).toBe(200)
  })

  it('answers 404 for an unknown note', async () => {
    const res = await call('DELETE', `/note/${UNKNOWN_ID}`, undefined, {
      'x-owner-token': toBase64Url(randomBytes(32)),
    })
    expect([res.status, res.body]).toEqual([404, { error: ERROR_MESSAGES.noteNotFound }])
  })

  it('answers 200 { ok: true }; the id then answers 404 everywhere', async () => {
    const { id, body } = await createNote(passwordBody())
    const owner = { 'x-owner-token': body.ownerToken as string }
    const res = await call('DELETE', `/note/${id}`, undefined, owner)
    expect([res.status, res.body]).toEqual([200, { ok: true }])
    const token = { authToken: body.authToken }
    for (const [method, path, payload, headers] of [
      ['GET', `/note/${id}`, undefined, {}],
      ['POST', `/note/${id}/view`, token, {}],
      ['POST', `/note/${id}/password`, token, {}],
      ['DELETE', `/note/${id}`, undefined, owner],
    ] as const) {
      const after = await call(method, path, payload, headers)
      expect([after.status, after.body], `${method} ${path}`).toEqual([
        404,
        { error: ERROR_MESSAGES.noteNotFound },
      ])
    }
  })
})

describe('end to end', () => {
  it('round-trips a note through the protocol crypto', async () => {
    const text = 'ssh-ed25519 AAAA… grüße 🔑'
    const secret = generateSecret()
    const salt = generateNoteSalt()
    const keys = await deriveNoteKeys(secret, salt)
    const sealed = await encryptNote(keys.contentKey, text, 'sshkey')
    const { id } = await createNote(
      noteBody({
        encryptedContent: toBase64(sealed.ciphertext),
        nonce: toBase64(sealed.nonce),
        salt: toBase64Url(salt),
        ownerToken: keys.ownerToken,
        authToken: keys.authToken,
        contentType: 'sshkey',
        maxViews: 1,
      }),
    )
    const info = await call('GET', `/note/${id}`)
    const again = await deriveNoteKeys(secret, fromBase64Url(info.body.salt as string))
    const view = await call('POST', `/note/${id}/view`, { authToken: again.authToken })
    expect(view.status).toBe(200)
    const opened = await decryptNote(
      again.contentKey,
      {
        ciphertext: fromBase64(view.body.encryptedContent as string),
        nonce: fromBase64(view.body.nonce as string),
      },
      info.body.contentType as string,
    )
    expect(opened).toBe(text)
  })

  it('keeps no token in clear in the database files', async () => {
    const body = noteBody({
      encryptedContent: toBase64(Buffer.from('ciphertext-marker-'.repeat(4))),
    })
    await createNote(body)
    const stored =
      db.dialect === 'sqlite'
        ? Buffer.concat(
            await Promise.all(
              (await readdir(dataDir)).map((name) => readFile(join(dataDir, name))),
            ),
          )
        : await databaseBytes(db, dataDir)
    // PostgreSQL's dump writes bytea as hex.
    const holds = (bytes: Buffer) =>
      stored.includes(bytes) || stored.includes(Buffer.from(bytes.toString('hex')))
    // The scan sees what the note stored, so an absent token is absent, not merely unread.
    expect(holds(Buffer.from('ciphertext-marker-'))).toBe(true)
    expect(holds(Buffer.from(body.salt as string))).toBe(true)
    for (const field of ['authToken', 'ownerToken']) {
      const token = body[field] as string
      expect(holds(Buffer.from(token)), field).toBe(false)
      expect(holds(Buffer.from(fromBase64Url(token))), field).toBe(false)
    }
  })
})

describe('the note body limit of the server', () => {
  it('takes a note at the size limit whose JSON escapes every slash of its base64', async () => {
    // Property: only the decoded size decides 413; a longer but valid JSON spelling is no reason.
    const server = await startTestServer({ env: { NOTE_MAX_SIZE: '65536' } })
    try {
      // 0xff bytes encode as "////"; with each slash escaped the string is twice as long.
      const content = toBase64(Buffer.alloc(65536 + 256, 0xff))
      const json = JSON.stringify(noteBody({ encryptedContent: content })).replaceAll('/', '\\/')
      const post = (body: string) =>
        fetch(`${server.url}/api/note`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      expect((await post(json)).status).toBe(201)
      const over = toBase64(Buffer.alloc(65536 + 257, 0xff))
      const overJson = JSON.stringify(noteBody({ encryptedContent: over })).replaceAll('/', '\\/')
      const refused = await post(overJson)
      expect(refused.status).toBe(413)
      expect(await refused.json()).toEqual({ error: ERROR_MESSAGES.noteTooLarge })
    } finally {
      await server.close()
    }
  })
})
