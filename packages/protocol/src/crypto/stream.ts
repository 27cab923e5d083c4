/**
 * The streamed payload cipher: AES-256-GCM over fixed-size records, after the STREAM
 * construction (Hoang, Reyhanitabar, Rogaway, Vizár 2015) as age uses it. Record i is sealed
 * under the nonce `i` (11 bytes, big-endian) followed by a byte that is 1 on the last record
 * and 0 on every other. So the cipher itself detects a flipped byte, reordered, duplicated or
 * dropped records, records spliced from another stream (other key), and truncation at a record
 * boundary (the new last record was not sealed as last), without comparing sizes afterwards.
 *
 * WebCrypto pays a fixed cost per call and runs calls concurrently off the main thread, so
 * several records are kept in flight and emitted in order.
 */
import { decryptFailed, ProtocolError } from '../errors.js'
import { RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'
import { buffer } from './primitives.js'

/** Records sealed or opened concurrently. */
export const RECORDS_IN_FLIGHT = 8
/** Finished records held for a reader that has not asked yet. */
const READY_RECORDS = 4

/**
 * Seals and opens single records under a file key. The default, `webCryptoRecords`, runs
 * WebCrypto where it is called; a platform may do the same work elsewhere (node:crypto in the
 * command line, a pool of workers in the browser) as long as the bytes are the same. `record`
 * may be a view into a buffer that holds other records too: one that is sent elsewhere by
 * transfer must be copied first.
 */
export interface RecordCipher {
  /**
   * AES-256-GCM: the ciphertext with its 16-byte tag appended. With `given`, the record is the
   * start of a buffer the stream assembled it in and never reads again: the cipher may keep or
   * move that buffer instead of copying the record.
   */
  seal(key: CryptoKey, nonce: Uint8Array, record: Uint8Array, given?: boolean): Promise<Uint8Array>
  /** The inverse of `seal`; rejects when the record does not authenticate. */
  open(key: CryptoKey, nonce: Uint8Array, record: Uint8Array, given?: boolean): Promise<Uint8Array>
  /**
   * A buffer of at least `bytes` bytes for the stream to assemble a record in that spans several
   * input chunks (one it may reuse, such as one a worker handed back); undefined for a new one.
   */
  recordBuffer?(bytes: number): ArrayBuffer | undefined
}

/** One AES-256-GCM call of WebCrypto on a record. */
async function subtleGcm(
  op: 'encrypt' | 'decrypt',
  key: CryptoKey,
  nonce: Uint8Array,
  data: Uint8Array,
): Promise<Uint8Array> {
  const out = await globalThis.crypto.subtle[op](
    { name: 'AES-GCM', iv: buffer(nonce) },
    key,
    buffer(data),
  )
  return new Uint8Array(out)
}

export const webCryptoRecords: RecordCipher = {
  seal: (key, nonce, record) => subtleGcm('encrypt', key, nonce, record),
  open: (key, nonce, record) => subtleGcm('decrypt', key, nonce, record),
}

/** The choice of record cipher, as the client calls that stream records take it. */
export interface RecordCipherOption {
  /** Where records are sealed or opened; WebCrypto on the calling thread by default. */
  cipher?: RecordCipher | undefined
}

export interface StreamOptions extends RecordCipherOption {
  /** Plaintext bytes per record; only tests and benchmarks change it. */
  recordSize?: number
  /** Records processed concurrently. */
  inFlight?: number
  /**
   * The index of the first record (encryption only): a stream resumed from a record boundary
   * seals its records under the nonces they had the first time, so the bytes are the same.
   */
  startIndex?: number
}

const MAX_COUNTER = Number.MAX_SAFE_INTEGER
/** The nonce's last byte on a stream's last record. */
const LAST_FLAG = 1

/** The 12-byte nonce of record `index`. */
export function recordNonce(index: number, last: boolean): Uint8Array {
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_COUNTER) {
    throw new ProtocolError('BAD_INPUT', 'Record counter out of range')
  }
  const nonce = new Uint8Array(12)
  // Bytes 0..10 hold the counter big-endian; only the low 53 bits can be set.
  let value = index
  for (let i = 10; i >= 4; i--) {
    nonce[i] = value % 256
    value = Math.floor(value / 256)
  }
  nonce[11] = last ? LAST_FLAG : 0
  return nonce
}

/** Whether `nonce` is that of a stream's last record (made by `recordNonce(index, true)`). */
export function isLastRecordNonce(nonce: Uint8Array): boolean {
  return nonce[11] === LAST_FLAG
}

/** A FIFO of byte chunks from which fixed-size blocks are taken without needless copies. */
class ByteQueue {
  private chunks: Uint8Array[] = []
  private head = 0
  length = 0

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    this.chunks.push(chunk)
    this.length += chunk.length
  }

  /**
   * Removes and returns the first `size` bytes (size <= length): a view of the input when one
   * chunk holds them, else a copy at the start of `into()` or of a new buffer (`assembled`).
   */
  take(
    size: number,
    into?: () => ArrayBuffer | undefined,
  ): { bytes: Uint8Array; assembled: boolean } {
    const first = this.chunks[0]
    if (first && first.length - this.head >= size) {
      const bytes = first.subarray(this.head, this.head + size)
      this.advance(size)
      return { bytes, assembled: false }
    }
    const given = into?.()
    const out =
      given !== undefined && given.byteLength >= size
        ? new Uint8Array(given, 0, size)
        : new Uint8Array(size)
    let filled = 0
    while (filled < size) {
      const chunk = this.chunks[0]!
      const part = Math.min(size - filled, chunk.length - this.head)
      out.set(chunk.subarray(this.head, this.head + part), filled)
      filled += part
      this.advance(part)
    }
    return { bytes: out, assembled: true }
  }

  private advance(size: number): void {
    this.length -= size
    this.head += size
    if (this.head === this.chunks[0]!.length) {
      this.chunks.shift()
      this.head = 0
    }
  }
}

type RecordJob = Promise<Uint8Array>

/**
 * Shared machinery of both directions: records are cut from the input, started at once, and
 * enqueued in order; the record held back until the end is processed with the last flag.
 */
function recordTransform(
  inputRecordSize: number,
  inFlight: number,
  cipher: RecordCipher,
  process: (record: Uint8Array, index: number, given: boolean) => RecordJob,
  finish: (rest: Uint8Array, index: number) => RecordJob,
  startIndex = 0,
): TransformStream<Uint8Array, Uint8Array> {
  const queue = new ByteQueue()
  const jobs: RecordJob[] = []
  let index = startIndex
  const into = cipher.recordBuffer && (() => cipher.recordBuffer!(inputRecordSize))

  const start = (job: RecordJob) => {
    // Held until awaited in order; the no-op handler keeps an early failure from being reported
    // as unhandled before its turn comes.
    job.catch(() => undefined)
    jobs.push(job)
  }

  return new TransformStream<Uint8Array, Uint8Array>(
    {
      async transform(chunk, controller) {
        if (!(chunk instanceof Uint8Array)) {
          throw new ProtocolError('BAD_INPUT', 'The payload stream carries Uint8Array chunks only')
        }
        queue.push(chunk)
        // A full record is known not to be the last only once a further byte has arrived.
        while (queue.length > inputRecordSize) {
          const { bytes, assembled } = queue.take(inputRecordSize, into)
          start(process(bytes, index++, assembled))
          while (jobs.length >= inFlight) controller.enqueue(await jobs.shift()!)
        }
      },
      async flush(controller) {
        start(finish(queue.take(queue.length).bytes, index++))
        while (jobs.length > 0) controller.enqueue(await jobs.shift()!)
      },
    },
    undefined,
    // Chromium runs each WebCrypto call on the calling thread, so records in flight overlap little;
    // finished records queued for the reader keep the input being read and processed while the
    // reader is busy elsewhere (a full send buffer, a hop to another thread). Bounded: this many
    // records more.
    { highWaterMark: READY_RECORDS },
  )
}

/**
 * Encrypts a plaintext stream into the record format with `fileKey`. Deterministic: AES-GCM
 * under the nonce of record i gives the same bytes for the same key, index and plaintext, so a
 * stream started at `startIndex` with the plaintext from `startIndex * recordSize` yields the
 * original ciphertext from that record on (docs/crypto.md, "Resuming").
 */
export function createEncryptStream(
  fileKey: CryptoKey,
  options: StreamOptions = {},
): TransformStream<Uint8Array, Uint8Array> {
  const recordSize = options.recordSize ?? RECORD_SIZE
  const cipher = options.cipher ?? webCryptoRecords
  return recordTransform(
    recordSize,
    options.inFlight ?? RECORDS_IN_FLIGHT,
    cipher,
    async (record, index, given) => cipher.seal(fileKey, recordNonce(index, false), record, given),
    async (rest, index) => cipher.seal(fileKey, recordNonce(index, true), rest),
    options.startIndex ?? 0,
  )
}

/**
 * Decrypts the record format with `fileKey`. Fails with `DECRYPT_FAILED` on any tampering or a
 * wrong key, and with `TRUNCATED` when the stream ends before its last record.
 */
export function createDecryptStream(
  fileKey: CryptoKey,
  options: StreamOptions = {},
): TransformStream<Uint8Array, Uint8Array> {
  const recordSize = options.recordSize ?? RECORD_SIZE
  const cipher = options.cipher ?? webCryptoRecords
  const open = async (record: Uint8Array, index: number, last: boolean, given = false) => {
    try {
      return await cipher.open(fileKey, recordNonce(index, last), record, given)
    } catch (cause) {
      throw decryptFailed(cause)
    }
  }
  const openLast = async (rest: Uint8Array, index: number) => {
    if (rest.length < RECORD_TAG_SIZE) {
      throw new ProtocolError('TRUNCATED', 'The encrypted stream ended before its last record')
    }
    try {
      return await open(rest, index, true)
    } catch (error) {
      // Only to name the failure: a whole record that opens as non-last means the real last
      // record (and perhaps more) was cut off.
      if (rest.length === recordSize + RECORD_TAG_SIZE) {
        const opensAsMiddle = await open(rest, index, false).then(
          () => true,
          () => false,
        )
        if (opensAsMiddle) {
          throw new ProtocolError('TRUNCATED', 'The encrypted stream ended before its last record')
        }
      }
      throw error
    }
  }
  // The last record stays the stream's: a failure opens it a second time to name the cause.
  return recordTransform(
    recordSize + RECORD_TAG_SIZE,
    options.inFlight ?? RECORDS_IN_FLIGHT,
    cipher,
    (record, index, given) => open(record, index, false, given),
    openLast,
  )
}
