/**
 * The upload session layer shared by every transport (single request, chunked HTTP, WebSocket)
 * and by uploads into file requests: it owns the blob writer, admits chunk requests before their
 * bodies are read and writes chunks in index order (buffering a bounded number that arrive
 * early), counts bytes against the declared length, and ends in exactly one of commit or abort. Nothing here knows about records or tokens; callers
 * create the record after `commit()` and register cleanup work with `onEnd`.
 */
import { randomUUID } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { BlobStore, BlobWriter } from '../storage/blob-store.js'
import { ChunkIntake, type ChunkHost, type IntakeMode, type IntakeOutcome } from './chunk-intake.js'

export type SessionOutcome = 'committed' | 'aborted'
export type SessionState = 'open' | 'committing' | SessionOutcome

export interface SessionLimits {
  /** Largest chunk body in bytes. */
  maxChunkSize: number
  /** Chunks that may wait in memory for an earlier index. */
  maxBufferedChunks: number
  /** Chunk requests of one session under way at once; more are refused with 429. */
  maxChunksInFlight: number
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
}

const outOfOrder = () => new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)

export class UploadSession<T = unknown> implements ChunkHost {
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
  /** Bytes of chunk bodies still being received, counted against the declared size. */
  private reserved = 0
  /** The lowest index not yet handed to the writer whole. */
  private nextIndex = 0
  /** Whether chunk `nextIndex` is being written as it arrives. */
  private streaming = false
  private readonly waiting = new Map<number, WaitingChunk>()
  /** Indexes whose bodies are being received. */
  private readonly receiving = new Set<number>()
  /** How many of those are out of order, each taking a place in the window. */
  private receivingOutOfOrder = 0
  /** Chunk requests admitted and not yet answered. */
  private chunksInFlight = 0
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

  get maxChunkSize(): number {
    return this.limits.maxChunkSize
  }

  assertOpen(): void {
    if (this.stateValue !== 'open') throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  }

  private accept(length: number): void {
    if (this.accepted + length > this.declaredSize) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    this.accepted += length
    this.touch()
  }

  private touch(): void {
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
   * Admits a chunk request on its index and Content-Length alone, before any byte of its body is
   * read (spec: POST /api/upload/:id/chunk). Throws 404 for an ended session, 400 for an index
   * already received or under way and for bytes past the declared size, 429 past the session's
   * requests in flight, its window of early chunks, or the server's buffer budget. The chunk due
   * next streams into the writer; any other is held in memory until its turn.
   */
  admitChunk(index: number, declared: number | undefined): ChunkIntake {
    this.assertOpen()
    if (declared === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
    if (declared !== undefined && declared > this.limits.maxChunkSize) {
      throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
    }
    if (index < this.nextIndex || this.waiting.has(index) || this.receiving.has(index)) {
      throw new HttpError(400, ERROR_MESSAGES.duplicateChunk)
    }
    if (this.chunksInFlight >= this.limits.maxChunksInFlight) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyChunksInFlight)
    }
    const due = index === this.nextIndex && !this.streaming
    const mode: IntakeMode = !due ? 'out-of-order' : declared === undefined ? 'in-order' : 'stream'
    if (mode === 'out-of-order') {
      const early = this.waiting.size + this.receivingOutOfOrder
      if (index > this.nextIndex + this.limits.maxBufferedChunks) throw outOfOrder()
      if (early >= this.limits.maxBufferedChunks) throw outOfOrder()
    }
    if (declared !== undefined) this.reserveBytes(declared)
    const budget = declared !== undefined && mode === 'out-of-order' ? declared : 0
    if (budget > 0 && !this.registry.reserveBuffer(budget)) {
      this.unreserveBytes(declared!)
      throw outOfOrder()
    }
    this.chunksInFlight++
    this.receiving.add(index)
    if (mode === 'out-of-order') this.receivingOutOfOrder++
    if (mode === 'stream') this.streaming = true
    return new ChunkIntake(this, index, mode, declared, { bytes: declared ?? 0, budget })
  }

  reserveBytes(bytes: number): void {
    if (this.accepted + this.reserved + bytes > this.declaredSize) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    this.reserved += bytes
  }

  unreserveBytes(bytes: number): void {
    this.reserved -= bytes
  }

  reserveBuffer(bytes: number): boolean {
    return this.registry.reserveBuffer(bytes)
  }

  releaseBuffer(bytes: number): void {
    this.registry.releaseBuffer(bytes)
  }

  stream(piece: Uint8Array): Promise<void> {
    this.touch()
    return this.enqueueWrite(piece)
  }

  async streamed(index: number, length: number): Promise<number> {
    this.accept(length)
    this.streaming = false
    this.receiving.delete(index)
    this.nextIndex = index + 1
    const written = this.chain
    this.releaseWaiting()
    await written
    return this.writer.bytesWritten
  }

  async buffered(
    index: number,
    mode: IntakeMode,
    parts: Uint8Array[],
    length: number,
  ): Promise<number> {
    this.accept(length)
    this.receiving.delete(index)
    if (mode === 'out-of-order') this.receivingOutOfOrder--
    if (index !== this.nextIndex) {
      // Answered at once; the bytes wait in memory, within the budget taken for them.
      this.waiting.set(index, { bytes: parts, length })
      return this.writer.bytesWritten
    }
    const written = this.enqueueWrite(parts)
    this.nextIndex++
    this.releaseWaiting()
    try {
      await written
    } finally {
      this.registry.releaseBuffer(length)
    }
    return this.writer.bytesWritten
  }

  released(index: number, mode: IntakeMode, outcome: IntakeOutcome): void {
    this.chunksInFlight--
    if (outcome === 'placed') return
    this.receiving.delete(index)
    if (mode === 'out-of-order') this.receivingOutOfOrder--
    if (mode === 'stream') this.streaming = false
    // Bytes already in the writer cannot be taken back: the chunk can never be sent again whole.
    if (outcome === 'cut-off') void this.abort()
  }

  /** Moves chunks that were waiting for their turn onto the write chain, in order. */
  private releaseWaiting(): void {
    for (
      let next = this.waiting.get(this.nextIndex);
      next;
      next = this.waiting.get(this.nextIndex)
    ) {
      this.waiting.delete(this.nextIndex)
      const release = () => this.registry.releaseBuffer(next!.length)
      // A failed write aborts the session (enqueueWrite); here only the budget is returned.
      this.enqueueWrite(next.bytes).then(release, release)
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
    const unfinished = this.waiting.size > 0 || this.receiving.size > 0
    if (unfinished || this.writer.bytesWritten !== this.declaredSize) {
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
    for (const chunk of this.waiting.values()) this.registry.releaseBuffer(chunk.length)
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
  /** Bytes of chunk bodies held in memory across all sessions (FILE_UPLOAD_CHUNK_BUFFER). */
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
