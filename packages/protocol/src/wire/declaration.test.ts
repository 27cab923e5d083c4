import { describe, expect, it } from 'vitest'

import { toBase64Url } from '../encoding.js'
import { DECLARATION_HEADERS, Declaration, type DeclarationLimits } from './declaration.js'

const bytes = (n: number, fill = 7) => toBase64Url(new Uint8Array(n).fill(fill))

const LIMITS: DeclarationLimits = {
  downloadOptions: [1, 5, 20],
  expireOptionsSec: [3600, 86400],
  maxFilesPerUpload: 10,
  maxSize: 1000,
}

const PLAIN: Declaration = {
  authToken: bytes(32, 1),
  ownerToken: bytes(32, 2),
  salt: bytes(32, 3),
  maxDownloads: 5,
  expireSec: 86400,
  fileCount: 2,
  size: 900,
  password: null,
}

const PROTECTED: Declaration = {
  ...PLAIN,
  password: { salt: bytes(16, 4), algo: 'argon2id-v2' },
}

/** The headers of a declaration as a Node server receives them (lower-case names). */
function received(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, v]) => [name.toLowerCase(), v]))
}

function refusalOf(result: ReturnType<typeof Declaration.fromHeaders>) {
  if (result.ok) throw new Error('expected a refusal')
  return result.refusal
}

/** Decodes the plain declaration's headers with `changes` applied (undefined removes). */
function decodeWith(changes: Record<string, string | undefined>) {
  const headers: Record<string, string | undefined> = {
    ...received(Declaration.toHeaders(PLAIN)),
    ...changes,
  }
  return Declaration.fromHeaders(headers, LIMITS)
}

describe('Declaration.toHeaders', () => {
  it('spells every field as the header the spec names', () => {
    expect(Declaration.toHeaders(PROTECTED)).toEqual({
      'X-Auth-Token': PLAIN.authToken,
      'X-Owner-Token': PLAIN.ownerToken,
      'X-Salt': PLAIN.salt,
      'X-Max-Downloads': '5',
      'X-Expire-Sec': '86400',
      'X-File-Count': '2',
      'X-Content-Length': '900',
      'X-Has-Password': 'true',
      'X-Password-Salt': bytes(16, 4),
      'X-Password-Algo': 'argon2id-v2',
    })
  })

  it('sends the password headers only with a password', () => {
    const headers = Declaration.toHeaders(PLAIN)
    expect(headers['X-Has-Password']).toBe('false')
    expect(Object.keys(headers)).not.toContain('X-Password-Salt')
    expect(Object.keys(headers)).not.toContain('X-Password-Algo')
  })

  it('names every field of the frame', () => {
    expect(Object.keys(DECLARATION_HEADERS).sort()).toEqual(
      Object.keys(Declaration.toFrame(PROTECTED)).sort(),
    )
  })
})

describe('Declaration round trips', () => {
  it.each([
    ['without a password', PLAIN],
    ['with a password', PROTECTED],
  ])('decodes its own headers and frame %s to the same declaration', (_name, declaration) => {
    expect(Declaration.fromHeaders(received(Declaration.toHeaders(declaration)), LIMITS)).toEqual({
      ok: true,
      value: declaration,
    })
    expect(Declaration.fromFrame(Declaration.toFrame(declaration), LIMITS)).toEqual({
      ok: true,
      value: declaration,
    })
  })

  it('reads the size of a single-request upload from Content-Length', () => {
    const headers = received(Declaration.toHeaders(PLAIN))
    delete headers['x-content-length']
    headers['content-length'] = '900'
    expect(Declaration.fromHeaders(headers, LIMITS, 'content-length')).toEqual({
      ok: true,
      value: PLAIN,
    })
  })

  it('gives padded base64url back in its one canonical spelling', () => {
    const padded = `${bytes(16, 9)}==`
    const result = decodeWith({ 'x-salt': padded, 'x-auth-token': `${PLAIN.authToken}=` })
    expect(result).toMatchObject({
      ok: true,
      value: { salt: bytes(16, 9), authToken: PLAIN.authToken },
    })
  })

  it('declares one file when X-File-Count is absent', () => {
    expect(decodeWith({ 'x-file-count': undefined })).toMatchObject({
      ok: true,
      value: { fileCount: 1 },
    })
  })
})

describe('Declaration.fromHeaders refusals', () => {
  it.each([
    ['x-auth-token', undefined, 'must be a base64url token'],
    ['x-auth-token', bytes(15), 'must be a base64url token'],
    ['x-owner-token', 'not base64!', 'must be a base64url token'],
    ['x-salt', bytes(24), 'must be base64url of 16 or 32 bytes'],
    ['x-max-downloads', '2', 'must be one of 1, 5, 20'],
    ['x-max-downloads', undefined, 'must be a whole number'],
    ['x-expire-sec', '60', 'must be one of 3600, 86400'],
    ['x-file-count', '0', 'must be from 1 to 10'],
    ['x-file-count', '11', 'must be from 1 to 10'],
    ['x-has-password', undefined, 'must be true or false'],
    ['x-content-length', undefined, 'must be the exact encrypted size in bytes'],
    ['x-content-length', '0', 'must be at least 1'],
  ])('refuses %s = %j with 400 "%s"', (header, value, reason) => {
    expect(refusalOf(decodeWith({ [header]: value }))).toEqual({
      status: 400,
      message: 'Invalid request',
      details: { [header]: reason },
    })
  })

  it.each([
    ['a leading zero', '05'],
    ['a sign', '+5'],
    ['a space', ' 5'],
    ['a decimal point', '5.0'],
    ['an exponent', '5e0'],
    ['hex', '0x5'],
  ])('refuses an integer written with %s', (_name, text) => {
    expect(refusalOf(decodeWith({ 'x-max-downloads': text })).details).toEqual({
      'x-max-downloads': 'must be a whole number',
    })
  })

  it.each(['TRUE', 'True', '1', 'yes', ''])('refuses X-Has-Password %j', (text) => {
    expect(refusalOf(decodeWith({ 'x-has-password': text })).details).toEqual({
      'x-has-password': 'must be true or false',
    })
  })

  it('refuses base64url with non-zero trailing bits or outside the alphabet', () => {
    const salt = bytes(16)
    const trailing = salt.slice(0, -1) + 'x'
    expect(refusalOf(decodeWith({ 'x-salt': trailing })).details).toEqual({
      'x-salt': 'must be base64url of 16 or 32 bytes',
    })
    expect(refusalOf(decodeWith({ 'x-salt': salt.replace(/.$/, '+') })).details).toEqual({
      'x-salt': 'must be base64url of 16 or 32 bytes',
    })
  })

  it('asks for the password salt and algorithm only with a password', () => {
    expect(refusalOf(decodeWith({ 'x-has-password': 'true' })).details).toEqual({
      'x-password-salt': 'must be base64url of 16 bytes',
      'x-password-algo': 'must be argon2id-v2',
    })
    const wrong = { 'x-password-salt': bytes(32), 'x-password-algo': 'argon2id' }
    expect(refusalOf(decodeWith({ 'x-has-password': 'true', ...wrong })).details).toEqual({
      'x-password-salt': 'must be base64url of 16 bytes',
      'x-password-algo': 'must be argon2id-v2',
    })
    expect(decodeWith({ 'x-has-password': 'false', ...wrong })).toMatchObject({
      ok: true,
      value: { password: null },
    })
  })

  it('reports every problem at once', () => {
    const details = refusalOf(
      decodeWith({ 'x-auth-token': undefined, 'x-expire-sec': '1', 'x-content-length': 'ten' }),
    ).details
    expect(details).toEqual({
      'x-auth-token': 'must be a base64url token',
      'x-expire-sec': 'must be one of 3600, 86400',
      'x-content-length': 'must be the exact encrypted size in bytes',
    })
  })

  it('answers 413 for a size over the limit, however large, once all else is valid', () => {
    const tooLarge = { status: 413, message: 'File size exceeds maximum allowed size' }
    expect(refusalOf(decodeWith({ 'x-content-length': '1001' }))).toEqual(tooLarge)
    expect(refusalOf(decodeWith({ 'x-content-length': '99999999999999999999' }))).toEqual(tooLarge)
    expect(refusalOf(decodeWith({ 'x-content-length': '1001', 'x-salt': undefined })).status).toBe(
      400,
    )
  })
})

describe('Declaration.fromFrame', () => {
  const frame = Declaration.toFrame(PLAIN) as Record<string, unknown>

  it('names a wrong field by its header, as the HTTP init does', () => {
    expect(refusalOf(Declaration.fromFrame({ ...frame, maxDownloads: '7' }, LIMITS))).toEqual({
      status: 400,
      message: 'Invalid request',
      details: { 'x-max-downloads': 'must be one of 1, 5, 20' },
    })
  })

  it('refuses a field that is not a string, even one with a default', () => {
    expect(refusalOf(Declaration.fromFrame({ ...frame, fileCount: 2 }, LIMITS)).details).toEqual({
      'x-file-count': 'must be a whole number',
    })
    expect(
      refusalOf(Declaration.fromFrame({ ...frame, contentLength: 900 }, LIMITS)).details,
    ).toEqual({ 'x-content-length': 'must be the exact encrypted size in bytes' })
    expect(
      refusalOf(Declaration.fromFrame({ ...frame, hasPassword: false }, LIMITS)).details,
    ).toEqual({ 'x-has-password': 'must be true or false' })
  })

  it('ignores unknown fields and inherited ones', () => {
    expect(Declaration.fromFrame({ ...frame, extra: 'x', 'X-Salt': 'y' }, LIMITS)).toEqual({
      ok: true,
      value: PLAIN,
    })
    const inherited = Object.create({ fileCount: 'many' }) as Record<string, unknown>
    Object.assign(inherited, frame)
    delete inherited.fileCount
    expect(Declaration.fromFrame(inherited, LIMITS)).toMatchObject({
      ok: true,
      value: { fileCount: 1 },
    })
  })

  it.each([undefined, null, 'x', 42])('declares nothing with headers %j', (headers) => {
    expect(Object.keys(refusalOf(Declaration.fromFrame(headers, LIMITS)).details!)).toEqual([
      'x-auth-token',
      'x-owner-token',
      'x-salt',
      'x-max-downloads',
      'x-expire-sec',
      'x-has-password',
      'x-content-length',
    ])
  })
})
