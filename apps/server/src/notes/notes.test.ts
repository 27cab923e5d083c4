/** NotesService on a real migrated SQLite file: validation, states and the order of checks. */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ERROR_MESSAGES, PASSWORD_ALGO, toBase64, toBase64Url } from '@fileshare/protocol'
import { eq } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import type { Tables } from '../db/client.js'
import { openSqlite, type SqliteDb } from '../db/sqlite.js'
import { HttpError } from '../http-error.js'
import type { Lockout, LockoutTicket } from '../limits/lockout.js'
import { NotesService } from './notes.js'
import { Tombstones } from '../records/tombstones.js'
import { hashToken } from '../access/tokens.js'
import { httpErrorOfAsync } from '../../test/http-error-of.js'

const NOTE_MAX_SIZE = 1000
const MAX_ATTEMPTS = 3
const START = Date.parse('2030-01-01T00:00:00.000Z')
const IP = '192.0.2.1'

/** Locks a key for an IP after MAX_ATTEMPTS failures, as the real lockout does. */
class FakeLockout implements Lockout {
  readonly failures = new Map<string, number>()

  assertOpen(key: string, clientIp: string): void {
    if ((this.failures.get(`${key} ${clientIp}`) ?? 0) >= MAX_ATTEMPTS) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyAttempts, { headers: { 'Retry-After': '60' } })
    }
  }

  admit(key: string, clientIp: string): LockoutTicket {
    this.assertOpen(key, clientIp)
    const at = `${key} ${clientIp}`
    const failures = (this.failures.get(at) ?? 0) + 1
    this.failures.set(at, failures)
    return { failures, at: 0 }
  }

  succeed(key: string, clientIp: string, ticket: LockoutTicket): void {
    const at = `${key} ${clientIp}`
    if (this.failures.get(at) === ticket.failures) this.failures.delete(at)
  }

  prune(): Promise<number> {
    return Promise.resolve(0)
  }
}

function b64url(size: number): string {
  return toBase64Url(randomBytes(size))
}

function b64(size: number): string {
  return toBase64(randomBytes(size))
}

/** A valid body of `POST /api/note`, with `changes` applied (undefined removes a field). */
function noteBody(changes: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    encryptedContent: b64(200),
    nonce: b64(12),
    salt: b64url(16),
    ownerToken: b64url(32),
    authToken: b64url(32),
    contentType: 'text',
    maxViews: 2,
    expireSec: 3600,
    hasPassword: false,
  }
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete body[key]
    else body[key] = value
  }
  return body
}

function passwordBody(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return noteBody({
    hasPassword: true,
    passwordSalt: b64url(16),
    passwordAlgo: PASSWORD_ALGO,
    ...changes,
  })
}

let dir: string
let db: SqliteDb
let notes: Tables['notes']
let clock: number
let lockout: FakeLockout
let service: NotesService

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-notes-'))
  db = await openSqlite(dir)
  notes = db.tables.notes
  clock = START
  lockout = new FakeLockout()
  service = new NotesService({
    config: {
      noteMaxSize: NOTE_MAX_SIZE,
      noteExpireOptionsSec: [300, 3600],
      noteViewOptions: [1, 2, 5],
    },
    db,
    lockout,
    tombstones: new Tombstones(db),
    now: () => clock,
  })
})

afterEach(async () => {
  await db.close()
  await rm(dir, { recursive: true, force: true })
})

describe('create', () => {
  it('stores a note and answers its id and expiry', async () => {
    const body = noteBody({ contentType: 'sshkey', expireSec: 300 })
    const created = await service.create(body)
    expect(created.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    expect(created.expiresAt).toBe('2030-01-01T00:05:00.000Z')
    const row = (await db.query.select().from(notes).where(eq(notes.id, created.id)))[0]!
    expect(toBase64(row.encryptedContent)).toBe(body.encryptedContent)
    expect(toBase64(row.nonce)).toBe(body.nonce)
    expect(row).toMatchObject({
      contentType: 'sshkey',
      viewCount: 0,
      maxViews: 2,
      createdAt: START,
    })
  })

  it('keeps tokens only as SHA-256 hashes', async () => {
    const body = noteBody()
    const { id } = await service.create(body)
    const [row] = await db.query.select().from(notes).where(eq(notes.id, id))
    if (!row) throw new Error('the note was not stored')
    expect(row.authTokenHash).toEqual(hashToken(Buffer.from(body.authToken as string, 'base64url')))
    expect(row.ownerTokenHash).toEqual(
      hashToken(Buffer.from(body.ownerToken as string, 'base64url')),
    )
  })

  it('accepts every content type and padded base64url salts', async () => {
    for (const contentType of ['text', 'markdown', 'password', 'code', 'sshkey']) {
      const salt = toBase64Url(randomBytes(16)) + '=='
      const { id } = await service.create(noteBody({ contentType, salt }))
      expect(await service.info(id)).toMatchObject({ contentType, salt: salt.slice(0, -2) })
    }
  })

  it.each([
    ['salt', b64url(15)],
    ['salt', b64url(17)],
    ['salt', b64url(32)],
    ['salt', 'not*base64url*at*all'],
    ['salt', toBase64(Buffer.alloc(16, 0xfb))],
    ['salt', 16],
    ['salt', undefined],
    ['nonce', b64(11)],
    ['nonce', b64(13)],
    ['nonce', b64url(12).replace(/[A-Za-z0-9]/, '_')],
    ['nonce', '!!!!!!!!!!!!!!!!'],
    ['nonce', undefined],
    ['encryptedContent', ''],
    ['encryptedContent', 'not base64'],
    ['encryptedContent', 'QUI'],
    ['encryptedContent', 12],
    ['encryptedContent', undefined],
    ['ownerToken', 'short'],
    ['ownerToken', 'a+b/'.repeat(8)],
    ['ownerToken', undefined],
    ['authToken', b64url(8)],
    ['authToken', null],
    ['contentType', 'html'],
    ['contentType', undefined],
    ['maxViews', 3],
    ['maxViews', '2'],
    ['maxViews', 2.5],
    ['maxViews', undefined],
    ['expireSec', 60],
    ['expireSec', '3600'],
    ['expireSec', undefined],
    ['hasPassword', 'false'],
    ['hasPassword', 0],
    ['hasPassword', undefined],
  ])('refuses %s = %j with 400 and details naming it', async (field, value) => {
    const error = await httpErrorOfAsync(() => service.create(noteBody({ [field]: value })))
    expect(error.status).toBe(400)
    expect(error.message).toBe(ERROR_MESSAGES.invalidRequest)
    expect(Object.keys(error.details ?? {})).toEqual([field])
  })

  it.each([
    ['passwordSalt', undefined],
    ['passwordSalt', b64url(32)],
    ['passwordSalt', 'bad base64'],
    ['passwordAlgo', undefined],
    ['passwordAlgo', 'argon2id'],
  ])('refuses a password note with %s = %j', async (field, value) => {
    const error = await httpErrorOfAsync(() => service.create(passwordBody({ [field]: value })))
    expect(error.status).toBe(400)
    expect(Object.keys(error.details ?? {})).toEqual([field])
  })

  it('refuses password fields on a note without a password', async () => {
    const error = await httpErrorOfAsync(() =>
      service.create(noteBody({ passwordSalt: b64url(16), passwordAlgo: PASSWORD_ALGO })),
    )
    expect(error.details).toEqual({
      passwordSalt: 'must be absent without a password',
      passwordAlgo: 'must be absent without a password',
    })
  })

  it('refuses unknown fields, including __proto__', async () => {
    expect((await httpErrorOfAsync(() => service.create(noteBody({ extra: 1 })))).details).toEqual({
      extra: 'is not a known field',
    })
    const proto = JSON.parse(JSON.stringify(noteBody()).replace('{', '{"__proto__":{},'))
    const error = await httpErrorOfAsync(() => service.create(proto))
    expect(error.status).toBe(400)
    expect(Object.keys(error.details ?? {})).toEqual(['__proto__'])
  })

  it('reports every problem at once', async () => {
    const error = await httpErrorOfAsync(() =>
      service.create(noteBody({ salt: 'x', maxViews: 7, extra: true })),
    )
    expect(Object.keys(error.details ?? {}).sort()).toEqual(['extra', 'maxViews', 'salt'])
  })

  it.each([null, [], 'text', 7])('refuses the body %j with 400', async (body) => {
    const error = await httpErrorOfAsync(() => service.create(body))
    expect(error.status).toBe(400)
    expect(error.details).toEqual({ body: 'must be a JSON object' })
  })

  it('accepts content of exactly NOTE_MAX_SIZE + 256 bytes and refuses one byte more with 413', async () => {
    expect(() =>
      service.create(noteBody({ encryptedContent: b64(NOTE_MAX_SIZE + 256) })),
    ).not.toThrow()
    const error = await httpErrorOfAsync(() =>
      service.create(noteBody({ encryptedContent: b64(NOTE_MAX_SIZE + 257) })),
    )
    expect(error.status).toBe(413)
    expect(error.message).toBe(ERROR_MESSAGES.noteTooLarge)
    expect(await db.query.select().from(notes)).toHaveLength(1)
  })

  it('answers 413 for oversized content before other problems', async () => {
    const error = await httpErrorOfAsync(() =>
      service.create(noteBody({ encryptedContent: b64(NOTE_MAX_SIZE + 300), salt: 'x' })),
    )
    expect(error.status).toBe(413)
  })
})

describe('info', () => {
  it('answers the public fields and never the ciphertext', async () => {
    const { id, expiresAt } = await service.create(noteBody({ contentType: 'markdown' }))
    const info = await service.info(id)
    expect(info).toEqual({
      id,
      contentType: 'markdown',
      hasPassword: false,
      salt: expect.any(String),
      maxViews: 2,
      viewCount: 0,
      expiresAt,
      createdAt: '2030-01-01T00:00:00.000Z',
    })
  })

  it('adds passwordAlgo and passwordSalt when protected', async () => {
    const body = passwordBody()
    const info = await service.info((await service.create(body)).id)
    expect(info).toMatchObject({
      hasPassword: true,
      passwordAlgo: PASSWORD_ALGO,
      passwordSalt: body.passwordSalt,
    })
  })

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of [
      '6f1c1f52-7a53-4a8e-9a4e-0c2d3b1a9e77',
      'nope',
      '',
      '6F1C1F52-7A53-4A8E-9A4E-0C2D3B1A9E77',
    ]) {
      const error = await httpErrorOfAsync(() => service.info(id))
      expect([error.status, error.message]).toEqual([404, ERROR_MESSAGES.noteNotFound])
    }
  })

  it('answers 410 Note has expired once expiresAt is reached', async () => {
    const { id } = await service.create(noteBody({ expireSec: 300 }))
    clock = START + 299_999
    expect((await service.info(id)).viewCount).toBe(0)
    clock = START + 300_000
    const error = await httpErrorOfAsync(() => service.info(id))
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.noteExpired])
  })

  it('answers 410 View limit reached once exhausted', async () => {
    const body = noteBody({ maxViews: 1 })
    const { id } = await service.create(body)
    await service.view(id, { authToken: body.authToken }, IP)
    const error = await httpErrorOfAsync(() => service.info(id))
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.viewLimitReached])
  })
})

describe('view', () => {
  it('counts each view and returns the ciphertext until maxViews, then 410', async () => {
    const body = noteBody({ maxViews: 2 })
    const { id } = await service.create(body)
    expect(await service.view(id, { authToken: body.authToken }, IP)).toEqual({
      encryptedContent: body.encryptedContent,
      nonce: body.nonce,
      viewCount: 1,
      maxViews: 2,
    })
    expect((await service.view(id, { authToken: body.authToken }, IP)).viewCount).toBe(2)
    const error = await httpErrorOfAsync(() => service.view(id, { authToken: body.authToken }, IP))
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.viewLimitReached])
    expect((await db.query.select().from(notes))[0]!.viewCount).toBe(2)
  })

  it.each([{}, { authToken: b64url(32) }, { authToken: 'short' }, { authToken: 5 }])(
    'answers 401 Invalid auth token for %j and counts nothing',
    async (viewBody) => {
      const { id } = await service.create(noteBody())
      const error = await httpErrorOfAsync(() => service.view(id, viewBody, IP))
      expect([error.status, error.message]).toEqual([401, ERROR_MESSAGES.invalidAuthToken])
      expect((await service.info(id)).viewCount).toBe(0)
    },
  )

  it('answers 400 for a body that is not an object', async () => {
    const { id } = await service.create(noteBody())
    expect((await httpErrorOfAsync(() => service.view(id, 'token', IP))).status).toBe(400)
  })

  it('answers 410 for an expired note before judging the token', async () => {
    const body = noteBody({ expireSec: 300 })
    const { id } = await service.create(body)
    clock = START + 300_000
    for (const authToken of [body.authToken, b64url(32)]) {
      const error = await httpErrorOfAsync(() => service.view(id, { authToken }, IP))
      expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.noteExpired])
    }
  })

  it('counts in one conditional UPDATE: a view that loses the race to the last one answers 410', async () => {
    const body = passwordBody({ maxViews: 1, expireSec: 300 })
    const { id } = await service.create(body)
    // Another process takes the last view between this request's checks and its UPDATE.
    lockout.admit = () => {
      db.connection.prepare('UPDATE notes SET view_count = max_views WHERE id = ?').run([id])
      return { failures: 1, at: 0 }
    }
    const error = await httpErrorOfAsync(() => service.view(id, { authToken: body.authToken }, IP))
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.viewLimitReached])
    expect((await db.query.select().from(notes))[0]!.viewCount).toBe(1)
  })

  it('counts in one conditional UPDATE: a note that expires before it answers 410', async () => {
    const body = passwordBody({ expireSec: 300 })
    const { id } = await service.create(body)
    lockout.admit = () => {
      clock = START + 300_000
      return { failures: 1, at: 0 }
    }
    const error = await httpErrorOfAsync(() => service.view(id, { authToken: body.authToken }, IP))
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.noteExpired])
    expect((await db.query.select().from(notes))[0]!.viewCount).toBe(0)
  })

  it('answers 404 for an unknown note', async () => {
    const error = await httpErrorOfAsync(() =>
      service.view('6f1c1f52-7a53-4a8e-9a4e-0c2d3b1a9e77', { authToken: b64url(32) }, IP),
    )
    expect(error.status).toBe(404)
  })

  it('locks a protected note after failed tokens, so view is no way around the lockout', async () => {
    const body = passwordBody({ maxViews: 5 })
    const { id } = await service.create(body)
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect(
        (await httpErrorOfAsync(() => service.view(id, { authToken: b64url(32) }, IP))).status,
      ).toBe(401)
    }
    const error = await httpErrorOfAsync(() => service.view(id, { authToken: body.authToken }, IP))
    expect(error.status).toBe(429)
    expect(lockout.failures.get(`note:${id} ${IP}`)).toBe(MAX_ATTEMPTS)
    expect((await service.view(id, { authToken: body.authToken }, '198.51.100.7')).viewCount).toBe(
      1,
    )
  })

  it('never locks a note without a password', async () => {
    const body = noteBody()
    const { id } = await service.create(body)
    for (let i = 0; i < MAX_ATTEMPTS + 1; i++) {
      expect(
        (await httpErrorOfAsync(() => service.view(id, { authToken: b64url(32) }, IP))).status,
      ).toBe(401)
    }
    expect((await service.view(id, { authToken: body.authToken }, IP)).viewCount).toBe(1)
    expect(lockout.failures.size).toBe(0)
  })
})

describe('checkPassword', () => {
  it('accepts the auth token without counting a view', async () => {
    const body = passwordBody({ maxViews: 1 })
    const { id } = await service.create(body)
    await expect(
      service.checkPassword(id, { authToken: body.authToken }, IP),
    ).resolves.toBeUndefined()
    await expect(
      service.checkPassword(id, { authToken: body.authToken }, IP),
    ).resolves.toBeUndefined()
    expect((await service.info(id)).viewCount).toBe(0)
  })

  it('answers 400 Note is not password-protected for a note without a password', async () => {
    const body = noteBody()
    const { id } = await service.create(body)
    const error = await httpErrorOfAsync(() =>
      service.checkPassword(id, { authToken: body.authToken }, IP),
    )
    expect([error.status, error.message]).toEqual([400, ERROR_MESSAGES.noteNotPasswordProtected])
  })

  it('answers 401 Invalid password and counts a failure of note:<id>', async () => {
    const { id } = await service.create(passwordBody())
    const error = await httpErrorOfAsync(() =>
      service.checkPassword(id, { authToken: b64url(32) }, IP),
    )
    expect([error.status, error.message]).toEqual([401, ERROR_MESSAGES.invalidPassword])
    expect([...lockout.failures]).toEqual([[`note:${id} ${IP}`, 1]])
  })

  it('does not count a malformed or missing token as a password guess', async () => {
    const { id } = await service.create(passwordBody())
    for (const guess of [{}, { authToken: '!' }]) {
      expect((await httpErrorOfAsync(() => service.checkPassword(id, guess, IP))).status).toBe(401)
    }
    expect(lockout.failures.size).toBe(0)
  })

  it('locks after the maximum of failures, even for the right token, and clears on success', async () => {
    const body = passwordBody()
    const { id } = await service.create(body)
    await service.checkPassword(id, { authToken: body.authToken }, IP)
    for (let i = 0; i < MAX_ATTEMPTS - 1; i++) {
      await httpErrorOfAsync(() => service.checkPassword(id, { authToken: b64url(32) }, IP))
    }
    await service.checkPassword(id, { authToken: body.authToken }, IP)
    expect(lockout.failures.size).toBe(0)
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await httpErrorOfAsync(() => service.checkPassword(id, { authToken: b64url(32) }, IP))
    }
    const error = await httpErrorOfAsync(() =>
      service.checkPassword(id, { authToken: body.authToken }, IP),
    )
    expect(error.status).toBe(429)
    expect(error.headers['Retry-After']).toBe('60')
  })

  it('answers 410 for an expired or exhausted note', async () => {
    const body = passwordBody({ maxViews: 1, expireSec: 300 })
    const { id } = await service.create(body)
    await service.view(id, { authToken: body.authToken }, IP)
    let error = await httpErrorOfAsync(() =>
      service.checkPassword(id, { authToken: body.authToken }, IP),
    )
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.viewLimitReached])
    clock = START + 300_000
    error = await httpErrorOfAsync(() =>
      service.checkPassword(id, { authToken: body.authToken }, IP),
    )
    expect([error.status, error.message]).toEqual([410, ERROR_MESSAGES.noteExpired])
  })

  it('answers 404 for an unknown note and counts nothing', async () => {
    const error = await httpErrorOfAsync(() =>
      service.checkPassword('x', { authToken: b64url(32) }, IP),
    )
    expect(error.status).toBe(404)
    expect(lockout.failures.size).toBe(0)
  })
})

describe('delete', () => {
  it('answers 401 Invalid owner token for a wrong or missing token and keeps the note', async () => {
    const body = noteBody()
    const { id } = await service.create(body)
    for (const token of [undefined, b64url(32), body.authToken as string]) {
      const error = await httpErrorOfAsync(() => service.delete(id, token))
      expect([error.status, error.message]).toEqual([401, ERROR_MESSAGES.invalidOwnerToken])
    }
    expect((await service.info(id)).id).toBe(id)
  })

  it('deletes with the owner token; the id then answers 404 everywhere', async () => {
    const body = passwordBody()
    const { id } = await service.create(body)
    await service.delete(id, body.ownerToken as string)
    const token = { authToken: body.authToken }
    for (const run of [
      () => service.info(id),
      () => service.view(id, token, IP),
      () => service.checkPassword(id, token, IP),
      () => service.delete(id, body.ownerToken as string),
    ]) {
      expect((await httpErrorOfAsync(run)).status).toBe(404)
    }
  })

  it('deletes an expired note too', async () => {
    const body = noteBody({ expireSec: 300 })
    const { id } = await service.create(body)
    clock = START + 600_000
    await service.delete(id, body.ownerToken as string)
    expect(await db.query.select().from(notes)).toEqual([])
  })
})
