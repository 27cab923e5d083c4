/**
 * The record cipher of the command line: node:crypto's AES-256-GCM, which runs on OpenSSL and
 * costs a fraction of WebCrypto's per-call overhead in Node (a thread-pool hop and copies for
 * every record). The bytes are those of the protocol's default record cipher.
 *
 * Whole records of a longer stream go to a small pool of threads (cipher-pool.ts), so that the
 * cipher overlaps reading, the socket and the disk; a stream of one record, the last record of
 * any stream and everything before the threads are up stay on this thread, where they cost no
 * thread start and no message. The last record stays here also because a failed last record is
 * opened a second time to tell truncation from tampering, which needs it still in place.
 */
import { createCipheriv, createDecipheriv, KeyObject } from 'node:crypto'

import { isLastRecordNonce, RECORD_TAG_SIZE, type RecordCipher } from '@fileshare/protocol'

import { CipherPool, type CipherOp } from './cipher-pool.js'
import {
  acquireBuffer,
  adoptBuffer,
  handOn,
  RECORD_BUFFER_BYTES,
  takeHandedOn,
} from './record-buffers.js'

/** Records shorter than this are not worth a message to another thread. */
const THREAD_MIN_BYTES = 64 * 1024

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

/** Seals on this thread, in place when the record's buffer may be reused. */
function seal(key: CryptoKey, nonce: Uint8Array, record: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), nonce)
  const body = cipher.update(record)
  cipher.final()
  const tag = cipher.getAuthTag()
  const reusable = takeHandedOn(record, RECORD_TAG_SIZE)
  const out =
    reusable !== undefined
      ? new Uint8Array(reusable, 0, record.length + RECORD_TAG_SIZE)
      : Buffer.allocUnsafe(record.length + RECORD_TAG_SIZE)
  out.set(body)
  out.set(tag, record.length)
  return reusable !== undefined ? handOn(reusable, out.length) : out
}

/** Opens on this thread; the record is left untouched when it does not authenticate. */
function open(key: CryptoKey, nonce: Uint8Array, record: Uint8Array): Uint8Array {
  if (record.length < RECORD_TAG_SIZE) throw new Error('Record shorter than its tag')
  const bodyLength = record.length - RECORD_TAG_SIZE
  const decipher = createDecipheriv('aes-256-gcm', keyObject(key), nonce)
  decipher.setAuthTag(record.subarray(bodyLength))
  const body = decipher.update(record.subarray(0, bodyLength))
  // Throws when the tag does not match: the caller turns that into DECRYPT_FAILED.
  decipher.final()
  const reusable = takeHandedOn(record, 0)
  if (reusable === undefined) return body
  new Uint8Array(reusable).set(body)
  return handOn(reusable, bodyLength)
}

let pool: CipherPool | undefined

/**
 * Runs a record on a thread of the pool: its own buffer moves there when it may (the bytes were
 * handed on whole), else a copy in a reused buffer does.
 */
async function onThread(
  op: CipherOp,
  threads: CipherPool,
  key: CryptoKey,
  nonce: Uint8Array,
  record: Uint8Array,
): Promise<Uint8Array> {
  let buffer = takeHandedOn(record, op === 'seal' ? RECORD_TAG_SIZE : 0)
  if (buffer === undefined) {
    buffer = acquireBuffer()
    new Uint8Array(buffer).set(record)
  }
  const output = await threads.run(op, keyObject(key), nonce, buffer, record.length)
  adoptBuffer(output.buffer)
  return handOn(output.buffer, output.length)
}

/** The pool to use for this record, or undefined to stay on this thread. */
function threadsFor(op: CipherOp, nonce: Uint8Array, record: Uint8Array): CipherPool | undefined {
  const room = op === 'seal' ? RECORD_TAG_SIZE : 0
  if (record.length < THREAD_MIN_BYTES || record.length + room > RECORD_BUFFER_BYTES) {
    return undefined
  }
  if (isLastRecordNonce(nonce)) return undefined
  pool ??= new CipherPool()
  pool.start()
  return pool.online ? pool : undefined
}

export const nodeRecords: RecordCipher = {
  seal: async (key, nonce, record) => {
    const threads = threadsFor('seal', nonce, record)
    return threads ? onThread('seal', threads, key, nonce, record) : seal(key, nonce, record)
  },
  open: async (key, nonce, record) => {
    const threads = threadsFor('open', nonce, record)
    return threads ? onThread('open', threads, key, nonce, record) : open(key, nonce, record)
  },
}

/**
 * Starts the cipher threads and resolves once they run (tests; a transfer starts them with its
 * first record, which stays on this thread until they are up).
 */
export async function startCipherThreads(): Promise<void> {
  pool ??= new CipherPool()
  await pool.ready()
}

/** Stops the cipher threads (tests; the command itself exits without waiting for them). */
export async function closeCipherThreads(): Promise<void> {
  const running = pool
  pool = undefined
  await running?.close()
}
