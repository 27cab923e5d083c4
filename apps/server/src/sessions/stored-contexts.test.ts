import { randomBytes } from 'node:crypto'

import { toBase64Url } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import type { RequestUploadInit } from '../requests/request-validation.js'
import {
  decodeRequestInit,
  decodeSpec,
  encodeRequestInit,
  encodeSpec,
  holdsNoteSlot,
  StoredContextError,
  type UploadSpec,
} from './stored-contexts.js'

const SPEC: UploadSpec = {
  size: 1234,
  salt: toBase64Url(randomBytes(32)),
  maxDownloads: 5,
  expireSec: 86400,
  fileCount: 2,
  hasPassword: false,
  passwordSalt: null,
  passwordAlgo: null,
  authTokenHash: randomBytes(32),
  ownerTokenHash: randomBytes(32),
}

const PROTECTED: UploadSpec = {
  ...SPEC,
  hasPassword: true,
  passwordSalt: toBase64Url(randomBytes(16)),
  passwordAlgo: 'argon2id-v2',
}

const INIT: RequestUploadInit = {
  uploadToken: null,
  salt: randomBytes(32),
  size: 99,
  fileCount: 1,
  senderNote: false,
}

/** The stored JSON of `spec` with `changes` applied (undefined removes a field). */
function specContext(spec: UploadSpec, changes: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(encodeSpec(spec)), ...changes })
}

describe('stored upload context', () => {
  it.each([
    ['without a password', SPEC],
    ['with a password', PROTECTED],
  ])('decodes what it encodes %s', (_name, spec) => {
    expect(decodeSpec(encodeSpec(spec))).toEqual(spec)
  })

  it.each([
    ['text that is not JSON', '{"size":', 'not JSON'],
    ['JSON that is not an object', '[1]', 'not an object'],
    ['a missing size', specContext(SPEC, { size: undefined }), 'size must be'],
    ['a size as a string', specContext(SPEC, { size: '1234' }), 'size must be'],
    ['a fractional count', specContext(SPEC, { fileCount: 1.5 }), 'fileCount must be'],
    ['a padded salt', specContext(SPEC, { salt: `${SPEC.salt}=` }), 'salt must be'],
    ['a hash of the wrong size', specContext(SPEC, { ownerTokenHash: 'AAAA' }), 'ownerTokenHash'],
    ['a missing hash', specContext(SPEC, { authTokenHash: undefined }), 'authTokenHash'],
    ['hasPassword as text', specContext(SPEC, { hasPassword: 'false' }), 'hasPassword'],
    [
      'a password salt without a password',
      specContext(SPEC, { passwordSalt: PROTECTED.passwordSalt }),
      'passwordSalt must be null',
    ],
    [
      'a password without its salt',
      specContext(PROTECTED, { passwordSalt: null }),
      'passwordSalt must be',
    ],
    [
      'another password algorithm',
      specContext(PROTECTED, { passwordAlgo: 'pbkdf2' }),
      'passwordAlgo must be argon2id-v2',
    ],
  ])('refuses %s with an error naming what is wrong', (_name, context, reason) => {
    expect(() => decodeSpec(context)).toThrow(StoredContextError)
    expect(() => decodeSpec(context)).toThrow(reason)
  })
})

describe('stored request upload context', () => {
  it.each([
    ['of files', INIT],
    ['of a sender note', { ...INIT, senderNote: true }],
  ])('decodes what it encodes %s', (_name, init) => {
    expect(decodeRequestInit(encodeRequestInit(init))).toEqual(init)
    expect(holdsNoteSlot(encodeRequestInit(init))).toBe(init.senderNote)
  })

  it.each([
    ['a salt of 16 bytes', { salt: randomBytes(16).toString('base64') }, 'salt must be'],
    ['a salt in base64url', { salt: toBase64Url(randomBytes(32)) }, 'salt must be'],
    ['a missing size', { size: undefined }, 'size must be'],
    ['no files', { fileCount: 0 }, 'fileCount must be'],
    ['senderNote as text', { senderNote: 'true' }, 'senderNote must be'],
  ])('refuses %s', (_name, changes, reason) => {
    const context = JSON.stringify({ ...JSON.parse(encodeRequestInit(INIT)), ...changes })
    expect(() => decodeRequestInit(context)).toThrow(StoredContextError)
    expect(() => decodeRequestInit(context)).toThrow(reason)
  })
})
