/**
 * The record cipher of the command line: node:crypto's AES-256-GCM, which runs on OpenSSL in the
 * calling thread and costs a fraction of WebCrypto's per-call overhead in Node (a thread-pool hop
 * and copies for every record). The bytes are those of the protocol's default record cipher.
 */
import { createCipheriv, createDecipheriv, KeyObject } from 'node:crypto'

import type { RecordCipher } from '@fileshare/protocol'

const TAG_SIZE = 16

/** One KeyObject per file key: the key is taken out of its CryptoKey once, not per record. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>()

function keyObject(key: CryptoKey): KeyObject {
  let object = keyObjects.get(key)
  if (object === undefined) {
    object = KeyObject.from(key)
    keyObjects.set(key, object)
  }
  return object
}

function seal(key: CryptoKey, nonce: Uint8Array, record: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), nonce)
  const out = Buffer.allocUnsafe(record.length + TAG_SIZE)
  const body = cipher.update(record)
  body.copy(out, 0)
  cipher.final()
  cipher.getAuthTag().copy(out, record.length)
  return out
}

function open(key: CryptoKey, nonce: Uint8Array, record: Uint8Array): Uint8Array {
  if (record.length < TAG_SIZE) throw new Error('Record shorter than its tag')
  const bodyLength = record.length - TAG_SIZE
  const decipher = createDecipheriv('aes-256-gcm', keyObject(key), nonce)
  decipher.setAuthTag(record.subarray(bodyLength))
  const body = decipher.update(record.subarray(0, bodyLength))
  // Throws when the tag does not match: the caller turns that into DECRYPT_FAILED.
  decipher.final()
  return body
}

export const nodeRecords: RecordCipher = {
  seal: async (key, nonce, record) => seal(key, nonce, record),
  open: async (key, nonce, record) => open(key, nonce, record),
}
