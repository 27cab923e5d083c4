/**
 * The upload session layer shared by every transport (single request, chunked HTTP, WebSocket)
 * and by uploads into file requests: it owns the blob writer, writes chunks in index order
 * (buffering a bounded number that arrive early), counts bytes against the declared length, and
 * ends in exactly one of commit or abort. Nothing here knows about records or tokens; callers
 * create the record after `commit()` and register cleanup work with `onEnd`.
 */
import { randomUUID } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { BlobStore, BlobWriter } from '../storage/blob-store.js'

export type SessionOutcome = 'committed' | 'aborted'
export type SessionState = 'open' | 'committing' | SessionOutcome

export interface SessionLimits {
  /** Largest chunk body in bytes. */
  maxChunkSize: number
  /** Chunks that may wait in memory for an earlier index. */
  maxBufferedChunks: number
  /** Bytes per second, 0 for none; the chunk routes delay their answers to hold it. */
  speedLimit: number
}

export interface NewSession<T> {
  declaredSize: number
  context: T
  limits: SessionLimits
  /** Over HTTP the session is dropped after this much idle time; sockets manage their own. */
  idleMs: number | null
}

interface WaitingChunk {
  bytes: readonly Uint8Array[]
  length: number
  resolve: () => void
  reject: (error: unknown) => void
}

export class UploadSession<T = unknown> {
  readonly declaredSize: number
  readonly context: T
  readonly startedAt: number
  /** Service-clock time of the last bytes, for the idle timeout. */
  lastActivity: number
  /** Wall-clock time of the last bytes, for telling running uploads from abandoned ones. */
  private lastActivityWall = performance.now()
  private stateValue: SessionState = 'open'
  /** Bytes accepted so far: written, queued for writing, or waiting for an earlier chunk. */
  private accepted = 0
  private nextIndex = 0
  private readonly waiting = new Map<number, WaitingChunk>()
  private chain: Promise<void> = Promise.resolve()
  private readonly endListeners: Array<(outcome: SessionOutcome) => void | Promise<void>> = []

  constructor(
    /** Also the key of the blob, and the id of the record made from it. */
    readonly id: string,
    private readonly registry: UploadSessions,
    private readonly writer: BlobWriter,
    spec: NewSession<T>,
    now: number,
  ) {
    this.declaredSize = spec.declaredSize
    this.context = spec.context
    this.limits = spec.limits
    this.idleMs = spec.idleMs
    this.startedAt = now
    this.lastActivity = now
  }

  readonly limits: SessionLimits
  readonly idleMs: number | null

  get state(): SessionState {
    return this.stateValue
  }

  /** Bytes durably handed to the blob store. */
  get bytesWritten(): number {
    return this.writer.bytesWritten
  }

  get bytesAccepted(): number {
    return this.accepted
  }

  /** Whether bytes arrived within `windowMs`: an upload under way, not an abandoned one. */
  isRunning(windowMs: number): boolean {
    return this.stateValue !== 'aborted' && performance.now() - this.lastActivityWall < windowMs
  }

  /** Runs once when the session ends, whichever way; used to free quota and request slots. */
  onEnd(listener: (outcome: SessionOutcome) => void | Promise<void>): void {
    this.endListeners.push(listener)
  }

  private assertOpen(): void {
    if (this.stateValue !== 'open') throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  }

  private accept(length: number): void {
    if (this.accepted + length > this.declaredSize) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    this.accepted += length
    this.lastActivity = this.registry.now()
    this.lastActivityWall = performance.now()
  }

  private enqueueWrite(bytes: Uint8Array | readonly Uint8Array[]): Promise<void> {
    const pieces = bytes instanceof Uint8Array ? [bytes] : bytes
    const write = this.chain.then(async () => {
      for (const piece of pieces) await this.writer.write(piece)
    })
    // A failed write fails the whole session; later writes on the chain fail with it.
    this.chain = write.catch((error: unknown) => {
      void this.abort()
      throw error
    })
    return this.chain
  }

  /**
   * Appends bytes in arrival order (single request and WebSocket). Resolves once the store has
   * taken them, which is the transport's backpressure signal.
   */
  append(bytes: Uint8Array): Promise<void> {
    this.assertOpen()
    this.accept(bytes.length)
    return this.enqueueWrite(bytes)
  }

  /**
   * Takes chunk `index` of a chunked upload and resolves with the bytes written once it (and
   * every chunk before it) has been written. Chunks that arrive early wait in memory, up to
   * `maxBufferedChunks` of them (spec: POST /api/upload/:id/chunk).
   */
  async writeChunk(index: number, chunk: Uint8Array | readonly Uint8Array[]): Promise<number> {
    // A chunk may come as the pieces the socket delivered; they are written without joining.
    const bytes = chunk instanceof Uint8Array ? [chunk] : chunk
    const length = bytes.reduce((sum, piece) => sum + piece.length, 0)
    this.assertOpen()
    if (length === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
    if (length > this.limits.maxChunkSize) throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
    if (index < this.nextIndex || this.waiting.has(index)) {
      throw new HttpError(400, ERROR_MESSAGES.duplicateChunk)
    }
    if (index > this.nextIndex + this.limits.maxBufferedChunks) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)
    }
    if (index !== this.nextIndex && this.waiting.size >= this.limits.maxBufferedChunks) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)
    }
    if (index !== this.nextIndex && !this.registry.reserveBuffer(length)) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)
    }
    try {
      this.accept(length)
    } catch (error) {
      if (index !== this.nextIndex) this.registry.releaseBuffer(length)
      throw error
    }

    if (index === this.nextIndex) {
      const written = this.enqueueWrite(bytes)
      this.nextIndex++
      this.releaseWaiting()
      await written
    } else {
      await new Promise<void>((resolve, reject) =>
        this.waiting.set(index, { bytes, length, resolve, reject }),
      )
    }
    this.lastActivity = this.registry.now()
    return this.writer.bytesWritten
  }

  /** Moves chunks that were waiting for their turn onto the write chain, in order. */
  private releaseWaiting(): void {
    for (
      let next = this.waiting.get(this.nextIndex);
      next;
      next = this.waiting.get(this.nextIndex)
    ) {
      this.waiting.delete(this.nextIndex)
      this.registry.releaseBuffer(next.length)
      this.enqueueWrite(next.bytes).then(next.resolve, next.reject)
      this.nextIndex++
    }
  }

  /** How long the answer to the latest chunk should wait so the upload keeps to the speed limit. */
  throttleDelayMs(now: number): number {
    if (this.limits.speedLimit <= 0) return 0
    const due = this.startedAt + (this.accepted / this.limits.speedLimit) * 1000
    return Math.max(0, due - now)
  }

  /**
   * Makes the blob durable once every declared byte is written. A different total ends the
   * session with 400 `Body size does not match declared content length` (spec: File upload
   * states, finalize with total bytes that differ).
   */
  async commit(): Promise<void> {
    this.assertOpen()
    this.stateValue = 'committing'
    try {
      await this.chain
    } catch (error) {
      await this.discard()
      throw error
    }
    if (this.waiting.size > 0 || this.writer.bytesWritten !== this.declaredSize) {
      await this.discard()
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    try {
      await this.writer.commit()
    } catch (error) {
      await this.discard()
      throw error
    }
    await this.end('committed')
  }

  /**
   * Ends the session and discards its bytes; safe to call at any time, more than once. A commit
   * under way is left to finish (its caller owns the outcome), so no blob is torn mid-rename.
   */
  async abort(): Promise<void> {
    if (this.stateValue === 'open') await this.discard()
  }

  /** Discards the session's bytes and ends it, from any state but an ended one. */
  private async discard(): Promise<void> {
    if (this.stateValue === 'aborted' || this.stateValue === 'committed') return
    this.stateValue = 'aborted'
    for (const chunk of this.waiting.values()) {
      this.registry.releaseBuffer(chunk.length)
      chunk.reject(new HttpError(404, ERROR_MESSAGES.uploadNotFound))
    }
    this.waiting.clear()
    // Listeners first: a request slot or quota freed by the end must be free the moment the
    // session is gone, not only once its partial blob has been removed.
    await this.end('aborted')
    await this.writer.abort()
  }

  private async end(outcome: SessionOutcome): Promise<void> {
    this.stateValue = outcome
    this.registry.forget(this)
    for (const listener of this.endListeners) {
      try {
        await listener(outcome)
      } catch (error) {
        this.registry.reportError(error)
      }
    }
  }
}

/** A session that received nothing for this long is not waited for at shutdown. */
const DRAIN_QUIET_MS = 5000

export interface UploadSessionsOptions {
  blobs: BlobStore
  now?: () => number
  /** Bytes of early chunks held in memory across all sessions. */
  bufferBudget?: number
  onError?: (error: unknown) => void
}

/** The registry of sessions under way. Sessions live in memory: a restart ends them all. */
export class UploadSessions {
  private readonly sessions = new Map<string, UploadSession>()
  private bufferedBytes = 0
  private readonly blobs: BlobStore
  private readonly bufferBudget: number
  private readonly errorSink: (error: unknown) => void
  readonly now: () => number

  constructor(options: UploadSessionsOptions) {
    this.blobs = options.blobs
    this.now = options.now ?? Date.now
    this.bufferBudget = options.bufferBudget ?? 256 * 1024 * 1024
    this.errorSink = options.onError ?? ((error) => console.error(error))
  }

  async create<T>(spec: NewSession<T>): Promise<UploadSession<T>> {
    const id = randomUUID()
    const session = new UploadSession<T>(id, this, await this.blobs.create(id), spec, this.now())
    this.sessions.set(id, session as UploadSession)
    return session
  }

  /** The open session with this id, when its context passes `belongs` (e.g. the same request). */
  get<T>(id: string, belongs: (context: unknown) => context is T): UploadSession<T> | undefined {
    const session = this.sessions.get(id)
    if (!session || session.state !== 'open' || !belongs(session.context)) return undefined
    return session as UploadSession<T>
  }

  get size(): number {
    return this.sessions.size
  }

  forget(session: UploadSession<unknown>): void {
    this.sessions.delete(session.id)
  }

  reserveBuffer(bytes: number): boolean {
    if (this.bufferedBytes + bytes > this.bufferBudget) return false
    this.bufferedBytes += bytes
    return true
  }

  releaseBuffer(bytes: number): void {
    this.bufferedBytes -= bytes
  }

  reportError(error: unknown): void {
    this.errorSink(error)
  }

  /** Aborts sessions idle for longer than their idle time; returns how many ended. */
  async expireIdle(): Promise<number> {
    const now = this.now()
    const stale = [...this.sessions.values()].filter(
      (s) => s.idleMs !== null && s.state === 'open' && now - s.lastActivity > s.idleMs,
    )
    await Promise.all(stale.map((s) => s.abort()))
    return stale.length
  }

  /**
   * Waits, at most `timeoutMs`, until no session is running: each has finished or has received
   * nothing for a few seconds (an abandoned session must not hold up a shutdown). Returns how many
   * sessions are still open.
   */
  async drain(timeoutMs: number): Promise<number> {
    // Wall-clock time: the service clock may be a test's manual clock, which never moves here.
    const deadline = performance.now() + timeoutMs
    const running = () => [...this.sessions.values()].some((s) => s.isRunning(DRAIN_QUIET_MS))
    while (running() && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return this.sessions.size
  }

  /** Ids of the open sessions (their unfinished blobs must not be swept). */
  ids(): Set<string> {
    return new Set(this.sessions.keys())
  }

  async abortAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.abort()))
  }
}
