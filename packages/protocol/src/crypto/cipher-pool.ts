/**
 * A pool of cipher workers that seal and open records beside the thread that cuts them, so that
 * AES-GCM overlaps reading, the network and the disk instead of running between them. The pool
 * knows nothing of the runtime: each app passes how to start one worker (node:worker_threads, a
 * Web Worker) and the cipher to use in this thread.
 *
 * Failure policy: a record that does not authenticate rejects that call only. A worker that
 * fails to start, throws or stops is dropped, never replaced, and the calls it held are run
 * again on the in-thread fallback (sealing and opening are pure, so nothing is lost or sent
 * twice); calls run there as well before a worker is ready, once none is left, and after
 * `close`. The one exception is a call that gave its buffer up (`transfer`): its bytes went with
 * the worker, so it rejects with `CipherJobError`.
 */
import { RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'
import type {
  CipherAnswer,
  CipherOp,
  CipherRequest,
  CipherWorkerMessage,
} from './cipher-messages.js'
import type { WorkerRecordCipher } from './cipher-worker.js'
import { RECORDS_IN_FLIGHT } from './stream.js'

/** A call refused by a worker's cipher, or lost with its worker. */
export class CipherJobError extends Error {
  override name = 'CipherJobError'
}

/** What the pool hears from one worker; the app's adapter wires its runtime's events to these. */
export interface CipherWorkerEvents {
  message(data: CipherWorkerMessage): void
  /** The worker failed to load, threw, could not read a message, or stopped. */
  failure(reason: string): void
}

/** One started worker, as the pool drives it. */
export interface CipherWorkerHandle<K> {
  post(request: CipherRequest<K>, transfer: ArrayBuffer[]): void
  terminate(): void | Promise<unknown>
  /** Whether the worker may keep the process running (Node's ref/unref): only while busy. */
  hold?(busy: boolean): void
}

/** Starts one worker; may throw where workers cannot be started. */
export type StartCipherWorker<K> = (events: CipherWorkerEvents) => CipherWorkerHandle<K>

export interface CipherPoolOptions<K> {
  /** Workers to start on first use: `cipherWorkerCount(cores)` for the runtime's cores. */
  size: number
  startWorker: StartCipherWorker<K>
  /**
   * Runs calls in this thread. It leaves the record's bytes as they are, except for a call that
   * gave its buffer up.
   */
  fallback: WorkerRecordCipher<K>
  /**
   * Supplies the buffer a record the caller keeps is copied into, given the bytes it needs (the
   * record, with room for a tag to seal): an app that recycles its own record buffers passes them here, so
   * that a copy costs no allocation. Undefined, or a buffer too small, falls back to the pool's own.
   */
  copyBuffer?: ((bytes: number) => ArrayBuffer | undefined) | undefined
}

export interface CipherCallOptions {
  /**
   * The caller gives `record`'s whole buffer up: it moves to a worker with no copy, the caller
   * never reads it again, and a call lost with its worker cannot be rerun (see the policy above).
   * A worker may write the output over it, so a record to seal should have 16 bytes of room after it.
   */
  transfer?: boolean
}

export interface CipherPool<K> {
  seal(
    key: K,
    nonce: Uint8Array,
    record: Uint8Array,
    options?: CipherCallOptions,
  ): Promise<Uint8Array>
  open(
    key: K,
    nonce: Uint8Array,
    record: Uint8Array,
    options?: CipherCallOptions,
  ): Promise<Uint8Array>
  /**
   * A record-sized buffer for a caller to fill and give up with its call (`transfer`): one a
   * worker handed back when there is one, so that records cost no allocation; undefined when
   * `bytes` is no whole record's size.
   */
  recordBuffer(bytes: number): ArrayBuffer | undefined
  /** Starts the workers now, so that their start-up overlaps other work. */
  start(): void
  /** Starts the workers; true once one takes records, false when none can. */
  ready(): Promise<boolean>
  /** Workers that take records now. */
  readonly workers: number
  /** Stops every worker; later calls run in this thread. */
  close(): Promise<void>
}

/** More workers than this gain nothing: the cipher then outruns the transfer around it. */
export const MAX_CIPHER_WORKERS = 2

/**
 * How many cipher workers a runtime with `cores` cores starts: one per core but one (left to the
 * thread that feeds them, the network and the disk), at least one, at most MAX_CIPHER_WORKERS.
 */
export function cipherWorkerCount(cores: number): number {
  if (!Number.isFinite(cores)) return 1
  return Math.min(MAX_CIPHER_WORKERS, Math.max(1, Math.floor(cores) - 1))
}

/** Room for a whole record either way: plaintext with room for its tag, or ciphertext. */
const SPARE_SIZE = RECORD_SIZE + RECORD_TAG_SIZE
/** Record buffers kept for copies: as many as the stream keeps in flight. */
const MAX_SPARES = RECORDS_IN_FLIGHT
/** Kept buffers are let go once no call has been in the pool for this long. */
const SPARES_IDLE_MS = 2_000

interface Call<K> {
  op: CipherOp
  key: K
  nonce: Uint8Array
  /** The caller's bytes, untouched, for a rerun; absent when the call gave its buffer up. */
  record: Uint8Array | undefined
  resolve(bytes: Uint8Array): void
  reject(error: unknown): void
}

interface Lane<K> {
  handle: CipherWorkerHandle<K>
  pending: Map<number, Call<K>>
  ready: boolean
}

/** A pool of `options.size` workers, started on first use. */
export function createCipherPool<K>(options: CipherPoolOptions<K>): CipherPool<K> {
  const { fallback, startWorker } = options
  let lanes: Array<Lane<K>> | undefined
  let closed = false
  let nextId = 1
  let turn = 0
  let waiting = 0
  let spares: ArrayBuffer[] = []
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  const readyWaiters: Array<(ready: boolean) => void> = []

  const live = () => (lanes ?? []).filter((lane) => lane.ready)

  /** Tells `ready()` callers once a worker is ready, or once none can be. */
  const notify = () => {
    const outcome = live().length > 0 ? true : lanes?.length === 0 ? false : undefined
    if (outcome === undefined) return
    for (const resolve of readyWaiters.splice(0)) resolve(outcome)
  }

  const runHere = (op: CipherOp, key: K, nonce: Uint8Array, record: Uint8Array) =>
    Promise.resolve().then(() => fallback[op](key, nonce, record))

  /** One call fewer waiting; once none is, the kept buffers go after a while. */
  const settled = () => {
    waiting--
    if (waiting > 0) return
    clearTimeout(idleTimer)
    idleTimer = setTimeout(() => (spares = []), SPARES_IDLE_MS)
    // Never the reason a process stays up (Node's timers have unref; a browser's are numbers).
    ;(idleTimer as { unref?: () => void }).unref?.()
  }

  /** The record in a buffer of its own, with room for a tag to seal (a kept one when it fits). */
  const copyOf = (op: CipherOp, record: Uint8Array): Uint8Array<ArrayBuffer> => {
    const needed = record.length + (op === 'seal' ? RECORD_TAG_SIZE : 0)
    const supplied = options.copyBuffer?.(needed)
    const fits = needed <= SPARE_SIZE && record.length >= SPARE_SIZE / 2
    const buffer =
      supplied !== undefined && supplied.byteLength >= needed
        ? supplied
        : fits
          ? (spares.pop() ?? new ArrayBuffer(SPARE_SIZE))
          : new ArrayBuffer(needed)
    const copy = new Uint8Array(buffer, 0, record.length)
    copy.set(record)
    return copy
  }

  const answered = (lane: Lane<K>, data: CipherAnswer) => {
    if (data.spare?.byteLength === SPARE_SIZE && spares.length < MAX_SPARES) spares.push(data.spare)
    const call = lane.pending.get(data.id)
    if (call === undefined) return
    lane.pending.delete(data.id)
    if (lane.pending.size === 0) lane.handle.hold?.(false)
    settled()
    if ('bytes' in data) call.resolve(data.bytes)
    else call.reject(new CipherJobError(`The record cipher failed (${data.error})`))
  }

  /** Drops a worker for good; its calls run again here, or fail when their bytes went with it. */
  const retire = (lane: Lane<K>, reason: string): void | Promise<unknown> => {
    if (!lanes?.includes(lane)) return
    lanes = lanes.filter((other) => other !== lane)
    const calls = [...lane.pending.values()]
    lane.pending.clear()
    for (const call of calls) {
      settled()
      if (call.record === undefined) {
        call.reject(new CipherJobError(`A record was lost with its cipher worker: ${reason}`))
      } else {
        runHere(call.op, call.key, call.nonce, call.record).then(call.resolve, call.reject)
      }
    }
    notify()
    return lane.handle.terminate()
  }

  const start = (): Array<Lane<K>> => {
    if (lanes || closed) return lanes ?? []
    lanes = []
    for (let n = 0; n < options.size; n++) {
      const lane: Lane<K> = { handle: undefined as never, pending: new Map(), ready: false }
      try {
        lane.handle = startWorker({
          message: (data) => {
            if (!lanes?.includes(lane)) return
            if ('ready' in data) {
              lane.ready = true
              notify()
            } else {
              answered(lane, data)
            }
          },
          failure: (reason) => void retire(lane, reason),
        })
      } catch {
        // No workers here (or the policy forbids them): the fallback does the work.
        break
      }
      lanes.push(lane)
    }
    notify()
    return lanes
  }

  /** The ready worker with the fewest calls waiting; ties go round robin. */
  const pick = (): Lane<K> | undefined => {
    const ready = live()
    if (ready.length === 0) return undefined
    let best = ready[turn++ % ready.length]!
    for (const lane of ready) if (lane.pending.size < best.pending.size) best = lane
    return best
  }

  const run = (
    op: CipherOp,
    key: K,
    nonce: Uint8Array,
    record: Uint8Array,
    callOptions: CipherCallOptions = {},
  ): Promise<Uint8Array> => {
    start()
    const lane = pick()
    if (lane === undefined) return runHere(op, key, nonce, record)
    const transfer = callOptions.transfer === true && record.buffer instanceof ArrayBuffer
    const sent = transfer ? record : copyOf(op, record)
    const id = nextId++
    return new Promise<Uint8Array>((resolve, reject) => {
      try {
        lane.handle.post({ id, op, key, nonce: nonce.slice(), record: sent }, [
          sent.buffer as ArrayBuffer,
        ])
      } catch {
        // The buffer cannot move (already detached, for one): the fallback answers for it.
        runHere(op, key, nonce, record).then(resolve, reject)
        return
      }
      waiting++
      clearTimeout(idleTimer)
      if (lane.pending.size === 0) lane.handle.hold?.(true)
      lane.pending.set(id, {
        op,
        key,
        nonce,
        record: transfer ? undefined : record,
        resolve,
        reject,
      })
    })
  }

  return {
    seal: (key, nonce, record, callOptions) => run('seal', key, nonce, record, callOptions),
    open: (key, nonce, record, callOptions) => run('open', key, nonce, record, callOptions),
    recordBuffer: (bytes) =>
      bytes <= SPARE_SIZE && bytes >= SPARE_SIZE / 2
        ? (spares.pop() ?? new ArrayBuffer(SPARE_SIZE))
        : undefined,
    start: () => void start(),
    ready() {
      start()
      return new Promise<boolean>((resolve) => {
        readyWaiters.push(resolve)
        notify()
      })
    },
    get workers() {
      return live().length
    },
    async close() {
      closed = true
      const stopping = (lanes ?? []).map((lane) => retire(lane, 'The cipher workers were stopped'))
      clearTimeout(idleTimer)
      spares = []
      readyWaiters.splice(0).forEach((resolve) => resolve(false))
      await Promise.all(stopping)
    },
  }
}
