/**
 * The codec of what a session row keeps for its finalize, as the JSON of its `context` column: a
 * normal upload's spec, or an upload into a request's declared fields (token hashes, never
 * tokens). Decoding is strict: a field not in its one spelling is a `StoredContextError`.
 *
 * May touch: nothing (pure).
 */
import {
  canonicalBase64Url,
  PASSWORD_ALGO,
  PASSWORD_SALT_BYTES,
  REQUEST_SALT_BYTES,
  UPLOAD_SALT_BYTES,
} from '@fileshare/protocol'

import type { RequestUploadInit } from '../requests/request-validation.js'
import { decodeBase64Strict, isJsonObject } from '../validation.js'

/** What a normal upload's session keeps of its declaration: its tokens reduced to their hashes. */
export interface UploadSpec {
  size: number
  salt: string
  maxDownloads: number
  expireSec: number
  fileCount: number
  hasPassword: boolean
  passwordSalt: string | null
  passwordAlgo: string | null
  authTokenHash: Buffer
  ownerTokenHash: Buffer
}

/** A token hash is a SHA-256 digest (access/tokens.ts). */
const TOKEN_HASH_BYTES = 32

/** A session row whose context does not decode; the row is unusable, not to be guessed at. */
export class StoredContextError extends Error {
  constructor(reason: string) {
    super(`Stored session context is invalid: ${reason}`)
    this.name = 'StoredContextError'
  }
}

/** The fields of a context, each read once and checked; fields it does not read are ignored. */
class ContextFields {
  private readonly fields: Record<string, unknown>

  constructor(context: string) {
    let parsed: unknown
    try {
      parsed = JSON.parse(context)
    } catch {
      throw new StoredContextError('not JSON')
    }
    if (!isJsonObject(parsed)) throw new StoredContextError('not an object')
    this.fields = parsed
  }

  private value(name: string): unknown {
    return Object.hasOwn(this.fields, name) ? this.fields[name] : undefined
  }

  private fail(name: string, expected: string): never {
    throw new StoredContextError(`${name} must be ${expected}`)
  }

  integer(name: string, min: number): number {
    const value = this.value(name)
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value
    return this.fail(name, `an integer of at least ${min}`)
  }

  boolean(name: string, fallback?: boolean): boolean {
    const value = this.value(name)
    if (value === undefined && fallback !== undefined) return fallback
    if (typeof value === 'boolean') return value
    return this.fail(name, 'true or false')
  }

  /** Canonical unpadded base64url of one of `sizes` bytes, as the protocol's decoders give it. */
  base64Url(name: string, sizes: readonly number[]): string {
    const value = this.value(name)
    if (typeof value === 'string' && canonicalBase64Url(value, sizes) === value) return value
    return this.fail(name, `canonical base64url of ${sizes.join(' or ')} bytes`)
  }

  /** Canonical padded base64 of exactly `bytes` bytes. */
  base64(name: string, bytes: number): Buffer {
    const decoded = decodeBase64Strict(this.value(name), { minBytes: bytes, maxBytes: bytes })
    return decoded ?? this.fail(name, `base64 of ${bytes} bytes`)
  }

  /** A value present exactly when `present`, null otherwise. */
  optional<T>(name: string, present: boolean, read: () => T): T | null {
    if (present) return read()
    return this.value(name) === null ? null : this.fail(name, 'null')
  }

  equal<T extends string>(name: string, expected: T): T {
    return this.value(name) === expected ? expected : this.fail(name, expected)
  }
}

export function encodeSpec(spec: UploadSpec): string {
  return JSON.stringify({
    ...spec,
    authTokenHash: spec.authTokenHash.toString('base64'),
    ownerTokenHash: spec.ownerTokenHash.toString('base64'),
  })
}

export function decodeSpec(context: string): UploadSpec {
  const fields = new ContextFields(context)
  const hasPassword = fields.boolean('hasPassword')
  return {
    size: fields.integer('size', 1),
    salt: fields.base64Url('salt', UPLOAD_SALT_BYTES),
    maxDownloads: fields.integer('maxDownloads', 1),
    expireSec: fields.integer('expireSec', 1),
    fileCount: fields.integer('fileCount', 1),
    hasPassword,
    passwordSalt: fields.optional('passwordSalt', hasPassword, () =>
      fields.base64Url('passwordSalt', [PASSWORD_SALT_BYTES]),
    ),
    passwordAlgo: fields.optional('passwordAlgo', hasPassword, () =>
      fields.equal('passwordAlgo', PASSWORD_ALGO),
    ),
    authTokenHash: fields.base64('authTokenHash', TOKEN_HASH_BYTES),
    ownerTokenHash: fields.base64('ownerTokenHash', TOKEN_HASH_BYTES),
  }
}

/** An upload into a request: its declared fields without the upload token, checked at init. */
export function encodeRequestInit(init: RequestUploadInit): string {
  return JSON.stringify({
    salt: init.salt.toString('base64'),
    size: init.size,
    fileCount: init.fileCount,
    ...(init.senderNote ? { senderNote: true } : {}),
  })
}

/**
 * What the context of a session holding one of its request's note slots contains, so that SQL
 * can count those sessions; contexts written before note slots existed hold none.
 */
export const NOTE_SLOT_CONTEXT = '"senderNote":true'

export function decodeRequestInit(context: string): RequestUploadInit {
  const fields = new ContextFields(context)
  return {
    uploadToken: null,
    salt: fields.base64('salt', REQUEST_SALT_BYTES),
    size: fields.integer('size', 1),
    fileCount: fields.integer('fileCount', 1),
    senderNote: fields.boolean('senderNote', false),
  }
}

/** Whether a request upload session's stored context holds one of the request's note slots. */
export function holdsNoteSlot(context: string): boolean {
  return context.includes(NOTE_SLOT_CONTEXT)
}
