import { RECORD_TAG_SIZE } from '@fileshare/protocol'

/**
 * The code of a cipher thread, as source text: a worker started from a string runs the same from
 * the built `dist/` and from the TypeScript sources under test, with no file to locate. It seals
 * or opens one record per message with node:crypto's AES-256-GCM, in the buffer it was given:
 * the ciphertext and its tag, or the plaintext, are written over the input, and the buffer goes
 * back by transfer. A record that fails to open is left as it was.
 *
 * Messages in: `{ type: 'key', keyId, key }` (a KeyObject, once per key and thread) and
 * `{ type: 'job', id, op: 'seal' | 'open', keyId, nonce, buffer, length }`. Out: `{ id, buffer,
 * length }` or `{ id, buffer, error }`.
 */
export const CIPHER_WORKER_SOURCE = `
'use strict'
const { parentPort } = require('node:worker_threads')
const { createCipheriv, createDecipheriv } = require('node:crypto')

const TAG_SIZE = ${RECORD_TAG_SIZE}
const keys = new Map()

function seal(key, nonce, buffer, length) {
  const data = new Uint8Array(buffer, 0, length)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  const body = cipher.update(data)
  cipher.final()
  data.set(body)
  new Uint8Array(buffer, length, TAG_SIZE).set(cipher.getAuthTag())
  return length + TAG_SIZE
}

function open(key, nonce, buffer, length) {
  if (length < TAG_SIZE) throw new Error('Record shorter than its tag')
  const bodyLength = length - TAG_SIZE
  const data = new Uint8Array(buffer, 0, length)
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAuthTag(data.subarray(bodyLength))
  const body = decipher.update(data.subarray(0, bodyLength))
  decipher.final()
  data.set(body)
  return bodyLength
}

parentPort.on('message', (message) => {
  if (message.type === 'key') {
    keys.set(message.keyId, message.key)
    return
  }
  const { id, op, keyId, nonce, buffer, length } = message
  let reply
  try {
    const key = keys.get(keyId)
    if (key === undefined) throw new Error('Unknown key')
    const out = op === 'seal' ? seal(key, nonce, buffer, length) : open(key, nonce, buffer, length)
    reply = { id, buffer, length: out }
  } catch (error) {
    reply = { id, buffer, error: String(error && error.message ? error.message : error) }
  }
  parentPort.postMessage(reply, [buffer])
})
`
