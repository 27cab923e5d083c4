/**
 * The record cipher of the transfer worker: a small pool of dedicated cipher workers
 * (cipher-worker.ts) that seal and open records side by side. Chromium runs each WebCrypto call
 * on the thread that makes it, so with the default cipher the transfer worker spent most of a
 * transfer encrypting while the network and the ZIP writer waited; here it only cuts records,
 * hands them out and puts the answers back in order (the stream keeps several in flight).
 *
 * Each record is copied into a buffer of its own and transferred (the caller's may be a view into
 * a larger buffer still in use); the answer's buffer is transferred back, and so is the record's,
 * which the next record is copied into: a fresh 1 MiB buffer per record cost the transfer worker
 * about a third as much time as the encryption it moved away. The file key travels with every
 * record: measured in Chromium, a message with the CryptoKey costs the same as one without
 * (about 10 µs, against 2.5 ms of AES-GCM per record), and no key outlives in a cipher worker
 * the call that needs it, so there is nothing to forget.
 *
 * Failures: a record that does not authenticate rejects that call only (the stream reports
 * DECRYPT_FAILED). A cipher worker that cannot be started or stops is dropped and the calls it
 * held are run again with WebCrypto here (sealing and opening are pure, so nothing is lost or
 * sent twice); once no worker is left, every later call runs here too.
 */
import {
  RECORD_SIZE,
  RECORD_TAG_SIZE,
  webCryptoRecords,
  type RecordCipher,
} from '@fileshare/protocol'

import type { CipherAnswer, CipherOp, CipherRequest } from './cipher-messages'

/** The parts of a Worker the pool uses (tests pass a stand-in). */
export interface CipherWorker {
  postMessage(message: CipherRequest, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent<CipherAnswer>) => void) | null
  onerror: ((event: ErrorEvent) => void) | null
  onmessageerror: ((event: MessageEvent) => void) | null
  terminate(): void
}

export interface CipherPoolOptions {
  /** Cipher workers to start; `defaultPoolSize()` when absent. */
  size?: number
  /** Starts one cipher worker; a module worker running cipher-worker.ts by default. */
  startWorker?: () => CipherWorker
  /** Where calls run when no cipher worker is available. */
  fallback?: RecordCipher
}

export interface CipherPool extends RecordCipher {
  /** Cipher workers currently running (0 before the first call, or once all have failed). */
  readonly workers: number
  /** Stops every cipher worker; calls still waiting run on the fallback. */
  close(): void
}

/** More cipher workers than this gain nothing: the stream keeps eight records in flight. */
const MAX_POOL_SIZE = 4

/**
 * One cipher worker per core but one, which is left to the transfer worker, the network and
 * the page; at least one. On two cores `pnpm bench:web` measured no difference between one, two
 * and three workers beyond its run-to-run spread (docs/web.md has the figures): browser and
 * server together keep both cores busy, so more cipher threads only compete with the rest of
 * the pipeline for them, and one worker is the cheapest way to take the cipher off the transfer
 * worker.
 */
export function defaultPoolSize(): number {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 2
  return Math.min(MAX_POOL_SIZE, Math.max(1, cores - 1))
}

/** Room for a whole record either way: plaintext, or ciphertext with its tag. */
const SPARE_SIZE = RECORD_SIZE + RECORD_TAG_SIZE
/** Record buffers kept for reuse: as many as the stream keeps in flight. */
const MAX_SPARES = 8
/** Kept buffers are let go once no record has been in the pool for this long. */
const SPARES_IDLE_MS = 2_000

function startModuleWorker(): CipherWorker {
  return new Worker(new URL('./cipher-worker.ts', import.meta.url), {
    type: 'module',
    name: 'fileshare-cipher',
  })
}

interface Call {
  op: CipherOp
  key: CryptoKey
  nonce: Uint8Array
  /** The caller's record, untouched: what a fallback run needs. */
  record: Uint8Array
  resolve: (bytes: Uint8Array) => void
  reject: (error: unknown) => void
}

interface Lane {
  worker: CipherWorker
  pending: Map<number, Call>
}

/** A `RecordCipher` over cipher workers, started on the first call. */
export function createCipherPool(options: CipherPoolOptions = {}): CipherPool {
  const size = options.size ?? defaultPoolSize()
  const startWorker = options.startWorker ?? startModuleWorker
  const fallback = options.fallback ?? webCryptoRecords
  let lanes: Lane[] | undefined
  let nextId = 1
  let turn = 0
  let waiting = 0
  let spares: ArrayBuffer[] = []
  let idleTimer: ReturnType<typeof setTimeout> | undefined

  const runOnFallback = (call: Call) => {
    fallback[call.op](call.key, call.nonce, call.record).then(call.resolve, call.reject)
  }

  /** One call fewer waiting; once none is, the kept buffers go after a while. */
  const settled = () => {
    waiting--
    if (waiting > 0) return
    clearTimeout(idleTimer)
    idleTimer = setTimeout(() => (spares = []), SPARES_IDLE_MS)
  }

  /** The record in a buffer of its own (a kept one when there is one), at offset 0. */
  const copyOf = (record: Uint8Array): Uint8Array<ArrayBuffer> => {
    if (record.length > SPARE_SIZE || record.length < SPARE_SIZE / 2) return record.slice()
    const copy = new Uint8Array(spares.pop() ?? new ArrayBuffer(SPARE_SIZE), 0, record.length)
    copy.set(record)
    return copy
  }

  const retire = (lane: Lane) => {
    if (!lanes?.includes(lane)) return
    lanes = lanes.filter((other) => other !== lane)
    lane.worker.onmessage = lane.worker.onerror = lane.worker.onmessageerror = null
    lane.worker.terminate()
    const calls = [...lane.pending.values()]
    lane.pending.clear()
    for (const call of calls) {
      settled()
      runOnFallback(call)
    }
  }

  const start = (): Lane[] => {
    if (lanes) return lanes
    lanes = []
    for (let n = 0; n < size; n++) {
      let worker: CipherWorker
      try {
        worker = startWorker()
      } catch {
        // No nested workers here (or the policy forbids them): the fallback does the work.
        break
      }
      const lane: Lane = { worker, pending: new Map() }
      worker.onmessage = ({ data }) => {
        if (data.spare.byteLength === SPARE_SIZE && spares.length < MAX_SPARES) {
          spares.push(data.spare)
        }
        const call = lane.pending.get(data.id)
        if (!call) return
        lane.pending.delete(data.id)
        settled()
        if ('bytes' in data) call.resolve(data.bytes)
        else call.reject(new DOMException('The record cipher failed', data.error))
      }
      // A script that fails to load, or an answer that cannot be read: the lane is given up.
      worker.onerror = (event) => {
        event.preventDefault()
        retire(lane)
      }
      worker.onmessageerror = () => retire(lane)
      lanes.push(lane)
    }
    return lanes
  }

  /** The lane with the fewest calls waiting; ties go round robin. */
  const pick = (live: Lane[]): Lane => {
    let best = live[turn++ % live.length]!
    for (const lane of live) if (lane.pending.size < best.pending.size) best = lane
    return best
  }

  const run = (op: CipherOp, key: CryptoKey, nonce: Uint8Array, record: Uint8Array) => {
    const live = start()
    if (live.length === 0) return fallback[op](key, nonce, record)
    const lane = pick(live)
    const id = nextId++
    return new Promise<Uint8Array>((resolve, reject) => {
      const call: Call = { op, key, nonce, record, resolve, reject }
      // A copy: the caller's bytes stay intact, and the copy's whole buffer can be transferred.
      const copy = copyOf(record)
      try {
        lane.worker.postMessage({ id, op, key, nonce: nonce.slice(), record: copy }, [copy.buffer])
      } catch {
        // The message could not be sent (a worker already gone): this call runs here.
        runOnFallback(call)
        retire(lane)
        return
      }
      waiting++
      clearTimeout(idleTimer)
      lane.pending.set(id, call)
    })
  }

  return {
    seal: (key, nonce, record) => run('seal', key, nonce, record),
    open: (key, nonce, record) => run('open', key, nonce, record),
    get workers() {
      return lanes?.length ?? 0
    },
    close() {
      for (const lane of lanes ?? []) retire(lane)
      clearTimeout(idleTimer)
      spares = []
    },
  }
}
