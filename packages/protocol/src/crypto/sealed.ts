/**
 * One-shot AES-256-GCM with a fresh random 12-byte IV and a purpose label as additional data,
 * for the small objects that are not streamed: notes, metadata, the brief and the vault.
 */
import { concatBytes, utf8 } from '../encoding.js'
import { AES_GCM_IV_SIZE, aesGcmDecrypt, aesGcmEncrypt, randomBytes } from './primitives.js'

export interface Sealed {
  ciphertext: Uint8Array
  nonce: Uint8Array
}

function additionalData(label: string, context: Uint8Array | undefined): Uint8Array {
  return context ? concatBytes(utf8(label), context) : utf8(label)
}

export async function seal(
  key: CryptoKey,
  plaintext: Uint8Array,
  label: string,
  context?: Uint8Array,
): Promise<Sealed> {
  const nonce = randomBytes(AES_GCM_IV_SIZE)
  const ciphertext = await aesGcmEncrypt(key, nonce, plaintext, additionalData(label, context))
  return { ciphertext, nonce }
}

export async function open(
  key: CryptoKey,
  sealed: Sealed,
  label: string,
  context?: Uint8Array,
): Promise<Uint8Array> {
  return aesGcmDecrypt(key, sealed.nonce, sealed.ciphertext, additionalData(label, context))
}
