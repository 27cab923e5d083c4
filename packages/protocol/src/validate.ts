/**
 * Validators for values that arrive from the network: headers, query strings, JSON bodies and
 * WebSocket frames. One convention throughout: `is*` functions are predicates and never throw;
 * `parse*`, `require*` and `decode*` functions return the checked value or throw a
 * `ProtocolError` with code `BAD_INPUT` (missing, wrong type, shape, range or length) or
 * `BAD_ENCODING` (bytes not spelled the way the field demands). The canonical decoders of the
 * request and inbox routes report a wrong length as `BAD_ENCODING`, because there the length is
 * part of the one accepted spelling. The optional `field` argument only names the value in the
 * error message; which HTTP status a failure becomes is the route's decision.
 */
import { fromBase64, fromBase64Url, toBase64Url, type ByteLength } from './encoding.js'
import { isProtocolError, ProtocolError } from './errors.js'
import { CLI_CALLBACK_PREFIXES } from './wire/auth.js'
import {
  BRIEF_CIPHERTEXT_BLOCK_BYTES,
  BRIEF_CIPHERTEXT_MAX_BYTES,
  BRIEF_CIPHERTEXT_MIN_BYTES,
  BRIEF_CIPHERTEXT_TAG_BYTES,
} from './wire/limits.js'

/** Inclusive bounds of an integer. */
export interface IntegerRange {
  min?: number
  max?: number
}

/** Inclusive bounds of a decoded length; `minBytes` defaults to 1 (no binary field is empty). */
export interface ByteRange {
  minBytes?: number
  maxBytes?: number
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Digits only, no sign, no leading zero except for "0" itself. */
const INTEGER_PATTERN = /^(?:0|[1-9][0-9]*)$/

function badInput(field: string, reason: string): ProtocolError {
  return new ProtocolError('BAD_INPUT', `Invalid input: ${field} ${reason}`)
}

function requireText(value: unknown, field: string): string {
  if (value === undefined || value === null) throw badInput(field, 'is missing')
  if (typeof value !== 'string') throw badInput(field, 'must be a string')
  return value
}

function checkRange(value: number, range: IntegerRange, field: string): number {
  if (range.min !== undefined && value < range.min) {
    throw badInput(field, `must be at least ${range.min}`)
  }
  if (range.max !== undefined && value > range.max) {
    throw badInput(field, `must be at most ${range.max}`)
  }
  return value
}

/** Names the field in an encoding error of `./encoding.js`, keeping the original as the cause. */
function decodeField(field: string, decode: () => Uint8Array): Uint8Array {
  try {
    return decode()
  } catch (error) {
    if (isProtocolError(error, 'BAD_ENCODING')) {
      throw new ProtocolError('BAD_ENCODING', `${error.message} in ${field}`, { cause: error })
    }
    throw error
  }
}

function checkByteLength(bytes: Uint8Array, range: ByteRange, field: string): Uint8Array {
  const min = range.minBytes ?? 1
  const max = range.maxBytes
  if (bytes.length < min || (max !== undefined && bytes.length > max)) {
    const expected =
      max === undefined ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`
    throw badInput(field, `must decode to ${expected} bytes`)
  }
  return bytes
}

/** Refuses text far longer than `maxBytes` could encode to before spending time decoding it. */
function checkEncodedLength(text: string, range: ByteRange, field: string): void {
  if (range.maxBytes !== undefined && text.length > 4 * Math.ceil(range.maxBytes / 3)) {
    throw badInput(field, `must decode to at most ${range.maxBytes} bytes`)
  }
}

/**
 * Whether `value` is an identifier as this server writes it: a UUID in lowercase 8-4-4-4-12 hex.
 * Uppercase is refused so that each id has one spelling (lookups, lockout keys `request:<id>`);
 * the version and variant digits are not checked, since ids are only ever compared.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value)
}

/** Whether `value` is one of `options` (compared with `===`). */
export function isOneOf<T>(value: unknown, options: readonly T[]): value is T {
  return (options as readonly unknown[]).includes(value)
}

/**
 * Parses a header or query value as a non-negative integer: ASCII digits only, no sign, space,
 * decimal point, exponent or leading zero (except "0"), at most `Number.MAX_SAFE_INTEGER`.
 */
export function parseIntegerStrict(
  value: unknown,
  range: IntegerRange = {},
  field = 'value',
): number {
  const text = requireText(value, field)
  if (!INTEGER_PATTERN.test(text)) {
    throw badInput(field, 'must be a non-negative integer written in plain digits')
  }
  const parsed = Number(text)
  if (!Number.isSafeInteger(parsed)) throw badInput(field, 'is too large')
  return checkRange(parsed, range, field)
}

/** Checks a JSON number: a safe integer within `range`. */
export function requireInteger(value: unknown, range: IntegerRange = {}, field = 'value'): number {
  if (value === undefined || value === null) throw badInput(field, 'is missing')
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw badInput(field, 'must be an integer')
  }
  return checkRange(value, range, field)
}

/** Checks a JSON boolean. */
export function requireBoolean(value: unknown, field = 'value'): boolean {
  if (value === undefined || value === null) throw badInput(field, 'is missing')
  if (typeof value !== 'boolean') throw badInput(field, 'must be true or false')
  return value
}

/**
 * Checks a JSON object (not null, not an array). With `allowedKeys`, any other own key is
 * refused, as `POST /api/request` demands (spec: "Unknown fields are refused").
 */
export function requireObject(
  value: unknown,
  allowedKeys?: readonly string[],
  field = 'body',
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badInput(field, 'must be an object')
  }
  if (allowedKeys !== undefined) {
    for (const key of Object.keys(value)) {
      if (!allowedKeys.includes(key)) {
        throw badInput(field, `has an unknown field ${JSON.stringify(key.slice(0, 40))}`)
      }
    }
  }
  return value as Record<string, unknown>
}

/**
 * The canonical spelling (unpadded base64url) of a salt or token given as base64url on the file
 * and note routes (spec: Encodings), or null when it is not base64url of one of `sizes` bytes.
 * Padding is accepted there and dropped, so each value has one stored spelling; non-zero
 * trailing bits and characters outside the alphabet are refused.
 */
export function canonicalBase64Url(value: unknown, sizes: readonly number[]): string | null {
  if (typeof value !== 'string') return null
  try {
    const bytes = fromBase64Url(value, { bytes: [Math.min(...sizes), Math.max(...sizes)] })
    return sizes.includes(bytes.length) ? toBase64Url(bytes) : null
  } catch {
    return null
  }
}

/**
 * Decodes standard padded base64 (`encryptedContent`, `encryptedMeta`, `nonce` of the file and
 * note routes) and checks the decoded length; by default it must be non-empty.
 */
export function decodeBase64(value: unknown, range: ByteRange = {}, field = 'value'): Uint8Array {
  const text = requireText(value, field)
  checkEncodedLength(text, range, field)
  return checkByteLength(
    decodeField(field, () => fromBase64(text)),
    range,
    field,
  )
}

/**
 * Decodes a binary field or header of the request and inbox routes: canonical unpadded
 * base64url of exactly `bytes` bytes (or a length within `[min, max]`), no other spelling (spec:
 * Encodings and identifiers).
 */
export function decodeCanonicalBytes(
  value: unknown,
  bytes: ByteLength,
  field = 'value',
): Uint8Array {
  const text = requireText(value, field)
  return decodeField(field, () => fromBase64Url(text, { canonical: true, bytes }))
}

/**
 * A token of the request and inbox routes: the value itself when it is canonical unpadded
 * base64url of `bytes` bytes (spec: Encodings), else null, which those routes answer like any
 * wrong token.
 */
export function canonicalToken(value: unknown, bytes: ByteLength): string | null {
  try {
    decodeCanonicalBytes(value, bytes)
    return value as string
  } catch {
    return null
  }
}

/**
 * Whether a brief ciphertext of `byteLength` bytes is well formed: 1040 to 8208 bytes, a whole
 * number of 1024-byte blocks plus the 16-byte tag (spec: File request record).
 */
export function isValidBriefLength(byteLength: number): boolean {
  return (
    Number.isSafeInteger(byteLength) &&
    byteLength >= BRIEF_CIPHERTEXT_MIN_BYTES &&
    byteLength <= BRIEF_CIPHERTEXT_MAX_BYTES &&
    (byteLength - BRIEF_CIPHERTEXT_TAG_BYTES) % BRIEF_CIPHERTEXT_BLOCK_BYTES === 0
  )
}

/** Decodes `brief.ciphertext`: canonical base64url of a length {@link isValidBriefLength} accepts. */
export function decodeBriefCiphertext(value: unknown, field = 'brief.ciphertext'): Uint8Array {
  const bytes = decodeCanonicalBytes(
    value,
    [BRIEF_CIPHERTEXT_MIN_BYTES, BRIEF_CIPHERTEXT_MAX_BYTES],
    field,
  )
  if (!isValidBriefLength(bytes.length)) {
    throw badInput(field, 'must be a whole number of 1024-byte blocks plus 16 bytes')
  }
  return bytes
}

/**
 * Whether `maxUploads` of a new request is allowed: one of `uploadOptions` or twice one of them,
 * since a submission of files plus a note takes two slots (spec: File request record).
 */
export function isAllowedRequestUploads(value: unknown, uploadOptions: readonly number[]): boolean {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) return false
  return uploadOptions.includes(value) || (value % 2 === 0 && uploadOptions.includes(value / 2))
}

/**
 * Whether `value` may be the `cli_callback` of `GET /auth/login`. Beyond the spec's prefix rule
 * the URL must parse with host exactly `localhost` or `127.0.0.1` and no user info, so that
 * `http://localhost.example.com` or `http://localhost@example.com` cannot receive a token.
 */
export function isCliCallbackUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false
  if (!CLI_CALLBACK_PREFIXES.some((prefix) => value.startsWith(prefix))) return false
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  return (
    url.protocol === 'http:' &&
    url.username === '' &&
    url.password === '' &&
    (url.hostname === 'localhost' || url.hostname === '127.0.0.1')
  )
}
