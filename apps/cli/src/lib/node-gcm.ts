/**
 * node:crypto's AES-256-GCM on one record, the bytes of the protocol's record cipher; the output
 * goes into a buffer the caller names (the record's own, reused) or a new one.
 */
import { createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto'

import { RECORD_TAG_SIZE } from '@fileshare/protocol'

/** Where an output may go: a buffer to write it at offset 0 of, or undefined for a new one. */
export type OutputBuffer = (length: number) => ArrayBuffer | undefined

function place(parts: Uint8Array[], length: number, into: OutputBuffer): Uint8Array {
  const target = into(length)
  const out = target ? new Uint8Array(target, 0, length) : Buffer.allocUnsafeSlow(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** The ciphertext and its tag; `into` may name the record's own buffer (read before written). */
export function sealRecord(
  key: KeyObject,
  nonce: Uint8Array,
  record: Uint8Array,
  into: OutputBuffer,
): Uint8Array {
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  const body = cipher.update(record)
  cipher.final()
  return place([body, cipher.getAuthTag()], record.length + RECORD_TAG_SIZE, into)
}

/** The plaintext; throws, leaving the record as it was, when it does not authenticate. */
export function openRecord(
  key: KeyObject,
  nonce: Uint8Array,
  record: Uint8Array,
  into: OutputBuffer,
): Uint8Array {
  if (record.length < RECORD_TAG_SIZE) throw new Error('Record shorter than its tag')
  const bodyLength = record.length - RECORD_TAG_SIZE
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAuthTag(record.subarray(bodyLength))
  const body = decipher.update(record.subarray(0, bodyLength))
  decipher.final()
  return place([body], bodyLength, into)
}

/** The buffer of `record` when the record starts it and `length` bytes fit (a worker's own copy). */
export function ownBuffer(record: Uint8Array): OutputBuffer {
  return (length) =>
    record.byteOffset === 0 && record.buffer.byteLength >= length
      ? (record.buffer as ArrayBuffer)
      : undefined
}
