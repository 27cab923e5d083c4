/**
 * A few threads that seal and open records with node:crypto, so that AES-GCM runs beside the
 * reading, the socket and the disk instead of between them. Buffers move to a thread and back by
 * transfer (no copies); each job settles with the buffer that now holds its output. Threads are
 * started on first use, hold the process open only while they have work, and one that dies
 * fails its jobs and is replaced by the next job.
 */
import type { KeyObject } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

import { CIPHER_WORKER_SOURCE } from './cipher-worker-source.js'

export type CipherOp = 'seal' | 'open'

export interface CipherOutput {
  /** The buffer the job was given, back from the thread: its first `length` bytes are the output. */
  buffer: ArrayBuffer
  length: number
}

/** A job refused by the cipher (the record does not authenticate) or lost with its thread. */
export class CipherJobError extends Error {
  override name = 'CipherJobError'
}

interface Job {
  resolve(output: CipherOutput): void
  reject(error: unknown): void
}

interface Reply {
  id: number
  buffer: ArrayBuffer
  length?: number
  error?: string
}

interface Slot {
  worker: Worker
  jobs: Map<number, Job>
  keys: Set<number>
  online: boolean
  dead: boolean
  /** Resolves once the thread runs. */
  started: Promise<void>
}

export interface CipherPoolOptions {
  /** Threads; by default one per spare core, at most two. */
  size?: number
  /** The thread's code; tests replace it to make a thread fail. */
  source?: string
}

/**
 * One thread per core beyond the one this thread needs, at most two. On two cores one thread
 * is as fast as two (reading, the socket and the disk keep the other core busy) and holds about
 * 50 MB less: each thread's garbage of node:crypto outputs waits for that thread's collector.
 */
function defaultSize(): number {
  return Math.min(2, Math.max(1, availableParallelism() - 1))
}

export class CipherPool {
  private readonly size: number
  private readonly source: string
  private readonly slots: Slot[] = []
  private readonly keyIds = new WeakMap<KeyObject, number>()
  private nextKeyId = 1
  private nextJobId = 1
  private closed = false

  constructor(options: CipherPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultSize())
    this.source = options.source ?? CIPHER_WORKER_SOURCE
  }

  /** Starts the threads now, so that their start-up overlaps other work. */
  start(): void {
    if (this.closed) return
    for (let i = 0; i < this.size; i++) {
      const slot = this.slots[i]
      if (slot === undefined || slot.dead) this.slots[i] = this.spawn()
    }
  }

  /** Starts the threads and resolves once one of them runs (or rejects when all failed). */
  ready(): Promise<void> {
    this.start()
    return Promise.any(this.slots.map((slot) => slot.started)).then(() => undefined)
  }

  /** Whether at least one thread is running and can take a job at once. */
  get online(): boolean {
    return this.slots.some((s) => s.online && !s.dead)
  }

  /**
   * Seals or opens the first `length` bytes of `buffer` (which is transferred: it is unusable
   * here from now on). For `seal` the buffer needs 16 bytes of room after them for the tag.
   */
  run(
    op: CipherOp,
    key: KeyObject,
    nonce: Uint8Array,
    buffer: ArrayBuffer,
    length: number,
  ): Promise<CipherOutput> {
    if (this.closed) return Promise.reject(new CipherJobError('The cipher threads were stopped'))
    this.start()
    const slot = this.leastBusy()
    const keyId = this.keyId(key)
    if (!slot.keys.has(keyId)) {
      slot.worker.postMessage({ type: 'key', keyId, key })
      slot.keys.add(keyId)
    }
    const id = this.nextJobId++
    return new Promise<CipherOutput>((resolve, reject) => {
      try {
        // Throws for a buffer that cannot move (detached, or a view's shared pool).
        slot.worker.postMessage({ type: 'job', id, op, keyId, nonce, buffer, length }, [buffer])
      } catch (error) {
        reject(error)
        return
      }
      slot.jobs.set(id, { resolve, reject })
      if (slot.jobs.size === 1) slot.worker.ref()
    })
  }

  /** Stops every thread; jobs still running fail. Resolves once the threads have exited. */
  async close(): Promise<void> {
    this.closed = true
    const slots = this.slots.splice(0)
    await Promise.all(slots.map((slot) => this.stop(slot, 'The cipher threads were stopped')))
  }

  private keyId(key: KeyObject): number {
    let id = this.keyIds.get(key)
    if (id === undefined) {
      id = this.nextKeyId++
      this.keyIds.set(key, id)
    }
    return id
  }

  private leastBusy(): Slot {
    let best = this.slots[0]!
    for (const slot of this.slots) {
      if (!slot.dead && (best.dead || slot.jobs.size < best.jobs.size)) best = slot
    }
    return best
  }

  private spawn(): Slot {
    // No inherited flags: the thread's code is a CommonJS script whatever the command ran with.
    const worker = new Worker(this.source, { eval: true, execArgv: [] })
    const started = new Promise<void>((resolve, reject) => {
      worker.once('online', resolve)
      worker.once('exit', () => reject(new CipherJobError('A cipher thread did not start')))
    })
    // Observed by `ready` only, if at all.
    started.catch(() => undefined)
    const slot: Slot = {
      worker,
      jobs: new Map(),
      keys: new Set(),
      online: false,
      dead: false,
      started,
    }
    worker.on('online', () => {
      slot.online = true
    })
    worker.on('message', (reply: Reply) => this.settle(slot, reply))
    worker.on('error', (error) => void this.stop(slot, `A cipher thread failed: ${error.message}`))
    worker.on('exit', (code) => void this.stop(slot, `A cipher thread stopped (exit code ${code})`))
    // Idle threads never keep the command from exiting; `run` holds one open while it works.
    // After the listeners: adding a 'message' listener holds the thread's port open again.
    worker.unref()
    return slot
  }

  private settle(slot: Slot, reply: Reply): void {
    const job = slot.jobs.get(reply.id)
    if (job === undefined) return
    slot.jobs.delete(reply.id)
    if (slot.jobs.size === 0) slot.worker.unref()
    if (reply.error !== undefined || reply.length === undefined) {
      job.reject(new CipherJobError(reply.error ?? 'The cipher thread gave no output'))
    } else {
      job.resolve({ buffer: reply.buffer, length: reply.length })
    }
  }

  /** Fails the thread's jobs and ends it; the next job starts a new thread in its place. */
  private async stop(slot: Slot, reason: string): Promise<void> {
    if (slot.dead) return
    slot.dead = true
    slot.online = false
    const jobs = [...slot.jobs.values()]
    slot.jobs.clear()
    for (const job of jobs) job.reject(new CipherJobError(reason))
    await slot.worker.terminate()
  }
}
