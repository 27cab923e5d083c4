/**
 * Key derivation: one random secret per upload or note, and from it (with the record's salt)
 * a key per purpose through HKDF-SHA256 with distinct labels. The tokens the server checks are
 * derived too, so they prove knowledge of the secret without revealing it.
 */
import { toBase64Url, utf8 } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { NOTE_SALT_BYTES, UPLOAD_SALT_BYTES } from '../wire/limits.js'
import { LABELS } from './labels.js'
import {
  hkdfAesKey,
  hkdfBytes,
  hkdfHmacKey,
  hmacSha256,
  KEY_SIZE,
  randomBytes,
} from './primitives.js'

export const SECRET_SIZE = 32
/** Salt size of new uploads; the 16-byte salts the spec also accepts still decrypt. */
export const UPLOAD_SALT_SIZE = 32

export interface UploadKeys {
  /** Key of the streamed payload cipher. */
  fileKey: CryptoKey
  /** Key of the metadata (names, types, sizes). */
  metaKey: CryptoKey
  /** `X-Auth-Token`, base64url. */
  authToken: string
  /** `X-Owner-Token`, base64url. */
  ownerToken: string
}

export interface NoteKeys {
  contentKey: CryptoKey
  authToken: string
  ownerToken: string
}

/** A new random 32-byte secret: the key material that travels only in the link's fragment. */
export function generateSecret(): Uint8Array {
  return randomBytes(SECRET_SIZE)
}

export function generateUploadSalt(): Uint8Array {
  return randomBytes(UPLOAD_SALT_SIZE)
}

export function generateNoteSalt(): Uint8Array {
  return randomBytes(NOTE_SALT_BYTES)
}

function checkLength(name: string, bytes: Uint8Array, allowed: readonly number[]): void {
  if (!allowed.includes(bytes.length)) {
    throw new ProtocolError('BAD_INPUT', `${name} must be ${allowed.join(' or ')} bytes`)
  }
}

async function authToken(
  secret: Uint8Array,
  salt: Uint8Array,
  keyLabel: string,
  tokenLabel: string,
) {
  const authKey = await hkdfHmacKey(secret, salt, keyLabel)
  return toBase64Url(await hmacSha256(authKey, utf8(tokenLabel)))
}

async function ownerToken(secret: Uint8Array, salt: Uint8Array, label: string): Promise<string> {
  return toBase64Url(await hkdfBytes(secret, salt, label, KEY_SIZE))
}

/** Keys and tokens of a file upload (also of each upload into a request). */
export async function deriveUploadKeys(secret: Uint8Array, salt: Uint8Array): Promise<UploadKeys> {
  checkLength('secret', secret, [SECRET_SIZE])
  checkLength('salt', salt, UPLOAD_SALT_BYTES)
  const [fileKey, metaKey, auth, owner] = await Promise.all([
    hkdfAesKey(secret, salt, LABELS.uploadFileKey),
    hkdfAesKey(secret, salt, LABELS.uploadMetaKey),
    authToken(secret, salt, LABELS.uploadAuthKey, LABELS.uploadAuthToken),
    ownerToken(secret, salt, LABELS.uploadOwnerToken),
  ])
  return { fileKey, metaKey, authToken: auth, ownerToken: owner }
}

/** Key and tokens of a note. */
export async function deriveNoteKeys(secret: Uint8Array, salt: Uint8Array): Promise<NoteKeys> {
  checkLength('secret', secret, [SECRET_SIZE])
  checkLength('salt', salt, [NOTE_SALT_BYTES])
  const [contentKey, auth, owner] = await Promise.all([
    hkdfAesKey(secret, salt, LABELS.noteContentKey),
    authToken(secret, salt, LABELS.noteAuthKey, LABELS.noteAuthToken),
    ownerToken(secret, salt, LABELS.noteOwnerToken),
  ])
  return { contentKey, authToken: auth, ownerToken: owner }
}
