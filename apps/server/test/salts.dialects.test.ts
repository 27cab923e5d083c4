/**
 * Salts have one spelling on the server (spec: Encodings; canonical decoding): the file and note
 * routes take base64url with or without padding and store the canonical unpadded form, refuse
 * non-zero trailing bits; the request routes refuse every spelling but the canonical one.
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES, PASSWORD_ALGO, toBase64Url } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { noteBody, startTestServer, uploadHeaders, type TestServer } from './harness.js'
import { call, createRequest, ENV, init, nextIp } from './requests.suite.js'
import { json } from './uploads.suite.js'

/** The bytes' base64url with the padding RFC 4648 gives it. */
function padded(bytes: Uint8Array): string {
  const text = toBase64Url(bytes)
  return text + '='.repeat((4 - (text.length % 4)) % 4)
}

/** The canonical spelling with non-zero unused bits in its last character: the same bytes. */
function trailingBits(bytes: Uint8Array): string {
  const text = toBase64Url(bytes)
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const last = alphabet.indexOf(text.at(-1)!)
  return text.slice(0, -1) + alphabet[last | 1]
}

describe('salt spellings', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: ENV })
  })
  afterAll(() => server.close())

  async function upload(salt: string, passwordSalt: string, route: 'upload' | 'upload/init') {
    const size = 10
    const headers = uploadHeaders(
      size,
      {
        'X-Salt': salt,
        'X-Has-Password': 'true',
        'X-Password-Salt': passwordSalt,
        'X-Password-Algo': PASSWORD_ALGO,
      },
      route === 'upload' ? 'Content-Length' : 'X-Content-Length',
    )
    const res = await fetch(`${server.url}/api/${route}`, {
      method: 'POST',
      headers: { ...headers, 'X-Forwarded-For': nextIp() },
      ...(route === 'upload' ? { body: randomBytes(size) } : {}),
    })
    return { status: res.status, body: await json(res), ownerToken: headers['X-Owner-Token']! }
  }

  // Security: one spelling per salt, so that the stored value is the bytes, not the client's text.
  it('stores an upload salt sent with padding in its canonical spelling', async () => {
    for (const size of [16, 32]) {
      const salt = randomBytes(size)
      const passwordSalt = randomBytes(16)
      const created = await upload(padded(salt), padded(passwordSalt), 'upload')
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const info = await json(await fetch(`${server.url}/api/info/${created.body.id as string}`))
      expect(info.salt).toBe(toBase64Url(salt))
      expect(info.passwordSalt).toBe(toBase64Url(passwordSalt))
    }
  })

  it('does the same for a chunked upload', async () => {
    const salt = randomBytes(16)
    const passwordSalt = randomBytes(16)
    const started = await upload(padded(salt), padded(passwordSalt), 'upload/init')
    expect(started.status).toBe(201)
    const id = started.body.id as string
    await fetch(`${server.url}/api/upload/${id}/chunk?index=0`, {
      method: 'POST',
      body: randomBytes(10),
    })
    const done = await fetch(`${server.url}/api/upload/${id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': started.ownerToken },
    })
    expect(done.status).toBe(200)
    const info = await json(await fetch(`${server.url}/api/info/${id}`))
    expect(info.salt).toBe(toBase64Url(salt))
    expect(info.passwordSalt).toBe(toBase64Url(passwordSalt))
  })

  it('refuses an upload salt with non-zero trailing bits', async () => {
    const good = toBase64Url(randomBytes(16))
    const salt = await upload(trailingBits(randomBytes(16)), good, 'upload')
    expect(salt.status).toBe(400)
    expect(salt.body.details).toHaveProperty('x-salt')
    const passwordSalt = await upload(good, trailingBits(randomBytes(16)), 'upload')
    expect(passwordSalt.status).toBe(400)
    expect(passwordSalt.body.details).toHaveProperty('x-password-salt')
  })

  it('stores a note salt sent with padding canonically and refuses trailing bits', async () => {
    const salt = randomBytes(16)
    const passwordSalt = randomBytes(16)
    const protectedNote = (changes: Record<string, unknown>) =>
      noteBody({
        hasPassword: true,
        passwordSalt: toBase64Url(randomBytes(16)),
        passwordAlgo: PASSWORD_ALGO,
        ...changes,
      })
    const created = await call(server, 'POST', '/note', {
      body: protectedNote({ salt: padded(salt), passwordSalt: padded(passwordSalt) }),
    })
    expect(created.status).toBe(201)
    const info = await call(server, 'GET', `/note/${created.body.id as string}`)
    expect(info.body.salt).toBe(toBase64Url(salt))
    expect(info.body.passwordSalt).toBe(toBase64Url(passwordSalt))
    for (const field of ['salt', 'passwordSalt']) {
      const res = await call(server, 'POST', '/note', {
        body: protectedNote({ [field]: trailingBits(randomBytes(16)) }),
      })
      expect(res.status, field).toBe(400)
      expect(res.body.details, field).toHaveProperty(field)
    }
  })

  it('refuses a request upload salt in any spelling but the canonical one', async () => {
    const req = await createRequest(server, {}, nextIp())
    const bytes = randomBytes(32)
    for (const salt of [padded(bytes), trailingBits(bytes)]) {
      const res = await init(server, req, 100, { 'X-Salt': salt })
      expect(res.status, salt).toBe(400)
      expect(res.body.error).toBe(ERROR_MESSAGES.invalidRequest)
    }
    expect((await init(server, req, 100, { 'X-Salt': toBase64Url(bytes) })).status).toBe(201)
  })
})
