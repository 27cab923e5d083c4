/**
 * The record cipher of the command line: node:crypto's AES-256-GCM (node-gcm.ts), far cheaper per
 * call in Node than WebCrypto, with the bytes of the protocol's record cipher. Whole records of a
 * longer stream go to the protocol's cipher pool on node:worker_threads (cipher-threads.ts), so
 * that the cipher overlaps reading, the socket and the disk; short records and a stream's last
 * record stay on this thread (a failed last record is opened again, to tell truncation from
 * tampering, so its bytes must stay in place).
 */
import { KeyObject } from 'node:crypto'
import { availableParallelism } from 'node:os'

import {
  cipherWorkerCount,
  createCipherPool,
  isLastRecordNonce,
  RECORD_TAG_SIZE,
  type CipherOp,
  type CipherPool,
  type RecordCipher,
  type WorkerRecordCipher,
} from '@fileshare/protocol'

import { startCipherThread } from './cipher-threads.js'
import { openRecord, sealRecord } from './node-gcm.js'
import {
  acquireBuffer,
  adoptBuffer,
  handOn,
  isHandedOn,
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
    object = fromNonExtractable(key)
    keyObjects.set(key, object)
  }
  return object
}

/**
 * `KeyObject.from` of the protocol's non-extractable file key. Node 24 and later deprecate
 * taking a non-extractable key this way (DEP0204) and print a warning on every command's stderr;
 * it is silenced for this one call only, where the key never leaves this process.
 */
function fromNonExtractable(key: CryptoKey): KeyObject {
  const silenced = process.noDeprecation === true
  process.noDeprecation = true
  try {
    return KeyObject.from(key)
  } finally {
    process.noDeprecation = silenced
  }
}

/** This thread's cipher: the pool's fallback, and where short and last records run. */
const here: WorkerRecordCipher<KeyObject> = {
  seal: (key, nonce, record) => {
    const buffer = takeHandedOn(record, RECORD_TAG_SIZE)
    const out = sealRecord(key, nonce, record, () => buffer)
    return buffer === undefined ? out : handOn(buffer, out.length)
  },
  open: (key, nonce, record) => {
    // Taken only once the record authenticated: a failed one stays handed on, as it was.
    let buffer: ArrayBuffer | undefined
    const out = openRecord(key, nonce, record, () => (buffer = takeHandedOn(record, 0)))
    return buffer === undefined ? out : handOn(buffer, out.length)
  },
}

let pool: CipherPool<KeyObject> | undefined

function threads(): CipherPool<KeyObject> {
  pool ??= createCipherPool({
    size: cipherWorkerCount(availableParallelism()),
    startWorker: startCipherThread,
    fallback: here,
    // Copies go into the command's record buffers, which come back as the outputs and are reused.
    copyBuffer: (bytes) => (bytes <= RECORD_BUFFER_BYTES ? acquireBuffer() : undefined),
  })
  return pool
}

/** A whole record of a longer stream, sized for a record buffer: worth a thread. */
function forThreads(op: CipherOp, nonce: Uint8Array, record: Uint8Array): boolean {
  const room = op === 'seal' ? RECORD_TAG_SIZE : 0
  return (
    record.length >= THREAD_MIN_BYTES &&
    record.length + room <= RECORD_BUFFER_BYTES &&
    !isLastRecordNonce(nonce)
  )
}

/**
 * Runs a record in the pool, giving its buffer up when it was handed on whole with room for the
 * output (else the pool copies it); an output that came back from a thread joins the buffers.
 */
async function inPool(op: CipherOp, key: CryptoKey, nonce: Uint8Array, record: Uint8Array) {
  const room = op === 'seal' ? RECORD_TAG_SIZE : 0
  const transfer = isHandedOn(record) && record.buffer.byteLength >= record.length + room
  const output = await threads()[op](keyObject(key), nonce, record, { transfer })
  if (isHandedOn(output) || output.byteOffset !== 0) return output
  if (output.buffer.byteLength !== RECORD_BUFFER_BYTES) return output
  adoptBuffer(output.buffer as ArrayBuffer)
  return handOn(output.buffer as ArrayBuffer, output.length)
}

export const nodeRecords: RecordCipher = {
  seal: async (key, nonce, record) =>
    forThreads('seal', nonce, record)
      ? inPool('seal', key, nonce, record)
      : here.seal(keyObject(key), nonce, record),
  open: async (key, nonce, record) =>
    forThreads('open', nonce, record)
      ? inPool('open', key, nonce, record)
      : here.open(keyObject(key), nonce, record),
}

/**
 * Starts the cipher threads and resolves once one runs (tests; a transfer starts them with its
 * first record, and records run on this thread until they are up).
 */
export async function startCipherThreads(): Promise<void> {
  await threads().ready()
}

/** Stops the cipher threads (tests; the command itself exits without waiting for them). */
export async function closeCipherThreads(): Promise<void> {
  const running = pool
  pool = undefined
  await running?.close()
}
