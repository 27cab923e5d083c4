/**
 * Thin wrappers over WebCrypto (`globalThis.crypto`, present in Node 20 and every browser), so
 * the rest of the package speaks `Uint8Array` and never touches a runtime-specific API.
 */
import { concatBytes, utf8 } from '../encoding.js'
import { decryptFailed } from '../errors.js'

export const AES_GCM_IV_SIZE = 12
export const KEY_SIZE = 32

function subtle(): SubtleCrypto {
  return globalThis.crypto.subtle
}

/** WebCrypto's typings want ArrayBuffer-backed views; every view this package makes is one. */
export function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>
}

export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length)
  // getRandomValues fills at most 65536 bytes per call.
  for (let offset = 0; offset < length; offset += 65536) {
    globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65536)))
  }
  return out
}

async function hkdfBase(ikm: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', buffer(ikm), 'HKDF', false, ['deriveBits', 'deriveKey'])
}

/** HKDF-SHA256 (RFC 5869) output bytes, for values that leave the client (tokens). */
export async function hkdfBytes(
  ikm: Uint8Array,
  salt: Uint8Array,
  label: string,
  length = KEY_SIZE,
): Promise<Uint8Array> {
  const base = await hkdfBase(ikm)
  const bits = await subtle().deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: buffer(salt), info: buffer(utf8(label)) },
    base,
    length * 8,
  )
  return new Uint8Array(bits)
}

async function hkdfKey(
  ikm: Uint8Array,
  salt: Uint8Array,
  label: string,
  algorithm: AesKeyGenParams | HmacKeyGenParams,
  usages: KeyUsage[],
): Promise<CryptoKey> {
  const base = await hkdfBase(ikm)
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: buffer(salt), info: buffer(utf8(label)) },
    base,
    algorithm,
    false,
    usages,
  )
}

/** HKDF-SHA256 into a non-extractable AES-256-GCM key. */
export function hkdfAesKey(ikm: Uint8Array, salt: Uint8Array, label: string): Promise<CryptoKey> {
  return hkdfKey(ikm, salt, label, { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt'])
}

/** HKDF-SHA256 into a non-extractable HMAC-SHA256 key. */
export function hkdfHmacKey(ikm: Uint8Array, salt: Uint8Array, label: string): Promise<CryptoKey> {
  return hkdfKey(ikm, salt, label, { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign'])
}

export async function hmacSha256(key: CryptoKey, message: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', key, buffer(message)))
}

export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', buffer(concatBytes(...parts))))
}

function gcmParams(iv: Uint8Array, additionalData: Uint8Array | undefined): AesGcmParams {
  const params: AesGcmParams = { name: 'AES-GCM', iv: buffer(iv) }
  if (additionalData) params.additionalData = buffer(additionalData)
  return params
}

export async function aesGcmEncrypt(
  key: CryptoKey,
  iv: Uint8Array,
  plaintext: Uint8Array,
  additionalData?: Uint8Array,
): Promise<Uint8Array> {
  return new Uint8Array(
    await subtle().encrypt(gcmParams(iv, additionalData), key, buffer(plaintext)),
  )
}

/** AES-256-GCM decryption; any authentication failure becomes a generic DECRYPT_FAILED. */
export async function aesGcmDecrypt(
  key: CryptoKey,
  iv: Uint8Array,
  ciphertext: Uint8Array,
  additionalData?: Uint8Array,
): Promise<Uint8Array> {
  try {
    return new Uint8Array(
      await subtle().decrypt(gcmParams(iv, additionalData), key, buffer(ciphertext)),
    )
  } catch (cause) {
    throw decryptFailed(cause)
  }
}

export function xorBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== b.length) throw new RangeError('xorBytes needs equal lengths')
  const out = new Uint8Array(a.length)
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!
  return out
}
