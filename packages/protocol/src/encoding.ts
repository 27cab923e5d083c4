/**
 * Byte encodings used on the wire: base64 (RFC 4648 §4) and base64url (RFC 4648 §5), the latter
 * also as the canonical unpadded spelling that the request and inbox routes demand at an exact
 * length. One decoder each, strict in the same way, used by the clients and the server alike.
 */
import { ProtocolError } from './errors.js'

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

function reverseTable(alphabet: string): Int16Array {
  const table = new Int16Array(128).fill(-1)
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i
  return table
}

const B64_REVERSE = reverseTable(B64)
const B64URL_REVERSE = reverseTable(B64URL)

function encodeWith(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out +=
      alphabet[n >>> 18]! +
      alphabet[(n >>> 12) & 63]! +
      alphabet[(n >>> 6) & 63]! +
      alphabet[n & 63]!
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = bytes[i]! << 16
    out += alphabet[n >>> 18]! + alphabet[(n >>> 12) & 63]! + (pad ? '==' : '')
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out +=
      alphabet[n >>> 18]! +
      alphabet[(n >>> 12) & 63]! +
      alphabet[(n >>> 6) & 63]! +
      (pad ? '=' : '')
  }
  return out
}

/**
 * Strict decoder shared by every variant: only the alphabet's characters, the unused trailing
 * bits of the last character must be zero (so each byte string has exactly one spelling), and a
 * length of 1 mod 4 is impossible. Padding, when allowed, must be exactly what RFC 4648 prescribes.
 */
function decodeWith(
  text: string,
  table: Int16Array,
  padding: 'required' | 'optional' | 'refused',
): Uint8Array {
  let body = text
  if (text.endsWith('=')) {
    if (padding === 'refused') throw badEncoding('padding is not allowed')
    if (text.length % 4 !== 0) throw badEncoding('bad padding')
    body = text.endsWith('==') ? text.slice(0, -2) : text.slice(0, -1)
    if (body.endsWith('=')) throw badEncoding('bad padding')
    if (body.length % 4 === 0) throw badEncoding('bad padding')
  } else if (padding === 'required' && text.length % 4 !== 0) {
    throw badEncoding('missing padding')
  }
  const rest = body.length % 4
  if (rest === 1) throw badEncoding('impossible length')
  const out = new Uint8Array((body.length >>> 2) * 3 + (rest === 0 ? 0 : rest - 1))
  let o = 0
  let i = 0
  const value = (index: number): number => {
    const code = body.charCodeAt(index)
    const v = code < 128 ? table[code]! : -1
    if (v < 0) throw badEncoding('character outside the alphabet')
    return v
  }
  for (; i + 3 < body.length; i += 4) {
    const n = (value(i) << 18) | (value(i + 1) << 12) | (value(i + 2) << 6) | value(i + 3)
    out[o++] = n >>> 16
    out[o++] = (n >>> 8) & 255
    out[o++] = n & 255
  }
  if (rest === 2) {
    const last = value(i + 1)
    if ((last & 15) !== 0) throw badEncoding('non-zero trailing bits')
    out[o] = (value(i) << 2) | (last >>> 4)
  } else if (rest === 3) {
    const last = value(i + 2)
    if ((last & 3) !== 0) throw badEncoding('non-zero trailing bits')
    const n = (value(i) << 18) | (value(i + 1) << 12) | (last << 6)
    out[o] = n >>> 16
    out[o + 1] = (n >>> 8) & 255
  }
  return out
}

function badEncoding(reason: string): ProtocolError {
  return new ProtocolError('BAD_ENCODING', `Invalid encoding: ${reason}`)
}

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  return encodeWith(bytes, B64, true)
}

/** Node's `Buffer`, the part of it used here; absent in browsers. */
interface NativeCodec {
  from(text: string, encoding: 'base64'): Uint8Array & { toString(encoding: 'base64'): string }
}

/**
 * Decodes standard base64; padding is required, and any non-canonical spelling is refused. Where
 * the runtime has Node's native codec it decodes (a note of a MiB many times faster than the
 * loop); that codec is lenient (it skips foreign characters, takes either alphabet and missing
 * padding, drops trailing bits), but the canonical spelling of what it decoded equals the text
 * exactly when the text was canonical itself. Anything else goes to the loop, which also names
 * what is wrong.
 */
export function fromBase64(text: string): Uint8Array {
  const native = (globalThis as { Buffer?: NativeCodec }).Buffer
  if (native !== undefined) {
    const bytes = native.from(text, 'base64')
    if (bytes.toString('base64') === text) {
      // A small result shares Node's pool: copied, so that no caller holds a view of that pool.
      return bytes.byteLength === bytes.buffer.byteLength
        ? new Uint8Array(bytes.buffer)
        : new Uint8Array(bytes)
    }
  }
  return decodeWith(text, B64_REVERSE, 'required')
}

/** base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  return encodeWith(bytes, B64URL, false)
}

/** A decoded length: exactly this many bytes, or from `min` to `max` bytes (inclusive). */
export type ByteLength = number | readonly [min: number, max: number]

export interface Base64UrlOptions {
  /**
   * Canonical unpadded base64url, as every binary field of the request and inbox routes must be:
   * padding is refused and, with `bytes`, the text must have exactly the length of that many
   * bytes, so each value has one accepted spelling. Otherwise (tokens and salts of the file and
   * note routes) padding is optional.
   */
  canonical?: boolean
  /** The decoded length required; the text's length is judged before anything is decoded. */
  bytes?: ByteLength
}

/**
 * Decodes base64url: only the alphabet's characters and zero trailing bits in every case,
 * padding and length as `options` say.
 */
export function fromBase64Url(text: string, options: Base64UrlOptions = {}): Uint8Array {
  const { canonical = false, bytes } = options
  const [min, max] = typeof bytes === 'number' ? [bytes, bytes] : (bytes ?? [0, Infinity])
  const expected = () =>
    badEncoding(min === max ? `expected ${min} bytes` : `expected ${min} to ${max} bytes`)
  const longest = canonical ? Math.ceil((max * 4) / 3) : 4 * Math.ceil(max / 3)
  if (text.length > longest || (canonical && text.length < Math.ceil((min * 4) / 3))) {
    throw expected()
  }
  const decoded = decodeWith(text, B64URL_REVERSE, canonical ? 'refused' : 'optional')
  if (decoded.length < min || decoded.length > max) throw expected()
  return decoded
}

/** UTF-8 encoding of a string. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

/** Strict UTF-8 decoding: malformed input throws instead of producing replacement characters. */
export function fromUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch (cause) {
    throw new ProtocolError('BAD_ENCODING', 'Invalid encoding: malformed UTF-8', { cause })
  }
}

/** Concatenates byte arrays into a new one. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
