/**
 * The upload session layer shared by every transport (single request, chunked HTTP, WebSocket)
 * and by uploads into file requests: it owns the blob writer, admits chunk requests before their
 * bodies are read and writes chunks in index order (buffering a bounded number that arrive
 * early), counts bytes against the declared length, and ends in exactly one of commit or abort.
 * Nothing here knows about records or tokens: a commit writes the caller's record in the
 * transaction that ends the session and its holds (session-holds.ts); `onEnd` tells others of the
 * end.
 *
 * A durable session (every one but a single-request upload) also has a row in the database
 * (streamed-session-records.ts) and a resumable blob writer. One whose client asked to resume it
 * is suspended when its connection ends otherwise than by `done` or an abort (its bytes made
 * durable and the row released), and any instance may resume it from its row until it idles out;
 * any other ends with its connection, as the spec has it.
 */
import { randomUUID } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'

import type { Config } from '../config.js'
import type { Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { recordUploadFailed } from '../metrics/recorder.js'
import type { BlobStore, BlobWriter, ResumableWriter } from '../storage/blob-store.js'
import { ChunkIntake, type ChunkHost, type IntakeMode, type IntakeOutcome } from './chunk-intake.js'
import {
  decodeQuotaHold,
  encodeQuotaHold,
  holdsOfRow,
  type SessionHoldEnds,
  type SessionHolds,
} from './session-holds.js'
import {
  StreamedSessionRecords,
  type StreamedKind,
  type StreamedSessionRow,
  type StreamedTransport,
} from './streamed-session-records.js'

export type SessionOutcome = 'committed' | 'aborted'
export type SessionState = 'open' | 'committing' | 'suspended' | SessionOutcome

/** The answer to a resume of a session that a live connection holds (docs/api.md). */
export const UPLOAD_IN_PROGRESS_MESSAGE = 'Upload already in progress'

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

/** The limits of a session of either kind, from the config, with its own largest chunk. */
export function sessionLimits(
  config: Pick<Config, 'fileUploadConcurrentChunks' | 'fileUploadSpeedLimit'>,
  maxChunkSize: number,
): SessionLimits {
  return {
    maxChunkSize,
    maxBufferedChunks: config.fileUploadConcurrentChunks,
    // One more than clients send, so a retry may overlap an attempt the server still reads.
    maxChunksInFlight: config.fileUploadConcurrentChunks + 1,
    speedLimit: config.fileUploadSpeedLimit,
  }
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

/** What makes a session durable: its row's fixed fields. */
export interface DurableSpec {
  kind: StreamedKind
  requestId: string | null
  transport: StreamedTransport
  /** The JSON the record is made from at finalize (token hashes only). */
  context: string
  /** Whether the client asked to resume it after a lost connection or a restart (docs/api.md). */
  resumable: boolean
}

/** Where a resumed session continues. */
interface ResumePoint {
  offset: number
  nextIndex: number
}

/** A WebSocket session records its durable point at least every this many bytes. */
export const CHECKPOINT_BYTES = 16 * 1024 * 1024

/**
 * The link of a durable session to its row: records durable points while this instance holds
 * it. WebSocket sessions record what the writer made durable on its own, at most one update at a
 * time; chunked sessions checkpoint after each chunk written in order.
 */
class DurableLink {
  /** The point last recorded. */
  private recorded: { bytesWritten: number; nextIndex: number | null; writerState: string }
  private recording: Promise<void> | undefined

  constructor(
    readonly id: string,
    readonly transport: StreamedTransport,
    /** Whether its client asked to resume it: only then does a lost connection keep it. */
    readonly resumable: boolean,
    readonly writer: ResumableWriter,
    private readonly records: StreamedSessionRecords,
    private readonly holder: string,
    start: ResumePoint,
    writerState: string,
  ) {
    this.recorded = {
      bytesWritten: start.offset,
      nextIndex: transport === 'chunks' ? start.nextIndex : null,
      writerState,
    }
  }

  get bytesRecorded(): number {
    return this.recorded.bytesWritten
  }

  /**
   * Records the writer's durable point once it moved at least `step` bytes past the point
   * recorded; never waits for it. A call while a record is under way is taken up after it, so
   * the last move is recorded too.
   */
  follow(lastActivity: number, onError: (error: unknown) => void, step = CHECKPOINT_BYTES): void {
    if (this.ended) return
    if (this.recording) {
      this.followAgain = {
        lastActivity,
        onError,
        step: Math.min(step, this.followAgain?.step ?? step),
      }
      return
    }
    const point = this.writer.durable()
    if (point.offset - this.recorded.bytesWritten < Math.max(step, 1)) return
    this.recording = this.save({ ...point, lastActivity })
      .catch(onError)
      .finally(() => {
        this.recording = undefined
        const again = this.followAgain
        this.followAgain = undefined
        if (again) this.follow(again.lastActivity, again.onError, again.step)
      })
  }

  /** A `follow` that came while a record was under way. */
  private followAgain:
    { lastActivity: number; onError: (error: unknown) => void; step: number } | undefined
  /** Set once the session is suspended or removed: nothing more is recorded. */
  private ended = false

  /**
   * The chunks before `nextIndex` are handed to the writer, ending at `end`: makes them durable
   * and records the chunk due next, while the chunks after them are written on. Records go in
   * chunk order, whichever checkpoint finishes first.
   */
  async chunkDone(nextIndex: number, end: number, lastActivity: number): Promise<void> {
    const point = await this.writer.checkpoint()
    // S3 keeps the part being gathered in memory and reopens at part boundaries only: a chunk
    // boundary counts once it is one of those and stored.
    const kept = point.offset === end || (this.writer.reopensAnywhere && point.offset >= end)
    if (!kept) return
    this.saving = this.saving.then(() => {
      if (nextIndex <= (this.recorded.nextIndex ?? 0)) return
      return this.save({ offset: end, state: point.state, lastActivity }, nextIndex)
    })
    await this.saving
  }

  /** Chunk records in order; a failed one fails those after it. */
  private saving: Promise<void> = Promise.resolve()

  private async save(
    point: { offset: number; state: string; lastActivity: number },
    nextIndex: number | null = this.recorded.nextIndex,
  ): Promise<void> {
    const recorded = { bytesWritten: point.offset, nextIndex, writerState: point.state }
    const held = await this.records.record(this.id, this.holder, {
      ...recorded,
      lastActivity: point.lastActivity,
    })
    if (!held) throw new Error(`Upload session ${this.id} is no longer held by this instance`)
    this.recorded = recorded
  }

  /**
   * Closes the writer and gives the row up. A WebSocket session keeps every byte it received
   * that the store can make durable; a chunked one keeps its last recorded chunk boundary.
   */
  async suspend(lastActivity: number): Promise<void> {
    this.ended = true
    await this.recording
    await this.saving.catch(() => undefined)
    const point = await this.writer.suspend(this.transport === 'ws')
    const recorded =
      this.transport === 'ws'
        ? { bytesWritten: point.offset, nextIndex: null, writerState: point.state }
        : { ...this.recorded, writerState: point.state }
    await this.records.release(this.id, this.holder, { ...recorded, lastActivity })
  }

  /** Records nothing more and waits for a record under way: the session is ending. */
  async close(): Promise<void> {
    this.ended = true
    await this.recording?.catch(() => undefined)
  }

  /**
   * Deletes the row on `tx`, after `close()`: the session has ended. False when another instance
   * holds it now (this one lost its hold): the session, its quota, slot and bytes are that
   * instance's.
   */
  remove(tx: Executor): Promise<boolean> {
    return this.records.remove(this.id, this.holder, tx)
  }
}

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
  /** Bytes of the chunks before `nextIndex`: where the next chunk starts in the blob. */
  private orderedBytes = 0
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
    /** What the session holds until it ends: its quota and, in a request, its slot. */
    private readonly holds: SessionHolds,
    now: number,
    /** The row of a durable session, and where a resumed one continues. */
    private readonly link?: DurableLink,
    start?: ResumePoint,
  ) {
    this.declaredSize = spec.declaredSize
    this.context = spec.context
    this.limits = spec.limits
    this.idleMs = spec.idleMs
    this.startedAt = now
    this.lastActivity = now
    if (start) {
      this.accepted = start.offset
      this.nextIndex = start.nextIndex
      this.orderedBytes = start.offset
      this.startOffset = start.offset
    }
    // The store makes bytes durable after the write that brought them (an S3 part uploads in
    // the background): each move is recorded as it happens, not when more bytes arrive.
    if (link?.transport === 'ws') {
      link.writer.onDurable(() =>
        link.follow(this.lastActivity, (error) => this.registry.reportError(error), 1),
      )
    }
  }

  /** The byte this session's connection started from (not 0 when resumed). */
  readonly startOffset: number = 0

  /** Whether the session outlives its connection (it has a row). */
  get durable(): boolean {
    return this.link !== undefined
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

  /** How the connection holding this session checks that its peer still answers. */
  private prober: ((withinMs: number) => void) | undefined

  /** Set by the connection holding the session: see `probe`. */
  onProbe(probe: (withinMs: number) => void): void {
    this.prober = probe
  }

  /**
   * Asks the connection holding this session to prove its peer alive within `withinMs`, or end
   * (and so suspend the session): a resume is waiting for it.
   */
  probe(withinMs: number): void {
    if (this.stateValue === 'open') this.prober?.(withinMs)
  }

  /** Runs once when the session ends, whichever way, after its holds ended. */
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
    const written = this.enqueueWrite(bytes)
    if (this.link) {
      const link = this.link
      void written.then(
        () => link.follow(this.lastActivity, (error) => this.registry.reportError(error)),
        () => undefined,
      )
    }
    return written
  }

  /**
   * Once the chunks before `nextIndex` are handed to the writer, makes them durable and records
   * them, without holding up the chunks after them; answers when that is done (chunked sessions
   * answer a chunk only then). A failure fails the session.
   */
  private checkpointChunk(nextIndex: number, end: number): Promise<void> {
    const link = this.link
    if (!link) return Promise.resolve()
    const durable = this.chain.then(() => link.chunkDone(nextIndex, end, this.lastActivity))
    const checkpoint = durable.catch((error: unknown) => {
      void this.abort()
      throw error
    })
    // Awaited by the chunk's answer, or by the commit or suspension that follows.
    checkpoint.catch(() => undefined)
    this.checkpoints = checkpoint
    return checkpoint
  }

  /** The last chunk checkpoint under way, which a commit waits for. */
  private checkpoints: Promise<void> = Promise.resolve()

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
    this.orderedBytes += length
    const durable = this.checkpointChunk(this.nextIndex, this.orderedBytes)
    const written = this.chain
    this.releaseWaiting()
    await written
    await durable
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
    this.enqueueWrite(parts)
    this.nextIndex++
    this.orderedBytes += length
    const durable = this.checkpointChunk(this.nextIndex, this.orderedBytes)
    const written = this.chain
    this.releaseWaiting()
    try {
      await written
    } finally {
      this.registry.releaseBuffer(length)
    }
    await durable
    return this.writer.bytesWritten
  }

  released(index: number, mode: IntakeMode, outcome: IntakeOutcome): void {
    this.chunksInFlight--
    if (outcome === 'placed') return
    this.receiving.delete(index)
    if (mode === 'out-of-order') this.receivingOutOfOrder--
    if (mode === 'stream') this.streaming = false
    // Bytes already in the writer cannot be taken back: the chunk can never be sent again whole
    // to this writer. A durable session goes back to its last recorded chunk instead.
    if (outcome === 'cut-off') void (this.link ? this.rewind(this.link) : this.abort())
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
      this.orderedBytes += next.length
      void this.checkpointChunk(this.nextIndex, this.orderedBytes)
    }
  }

  /** How long the answer to the latest chunk should wait so the upload keeps to the speed limit. */
  throttleDelayMs(now: number): number {
    if (this.limits.speedLimit <= 0) return 0
    const due =
      this.startedAt + ((this.accepted - this.startOffset) / this.limits.speedLimit) * 1000
    return Math.max(0, due - now)
  }

  /**
   * Makes the blob durable once every declared byte is written, then writes the upload's record
   * with `record` in the transaction that ends the session: its row deleted, its holds ended as
   * kept. A different total ends the session with 400 `Body size does not match declared content
   * length` (spec: File upload states, finalize with total bytes that differ). When the record's
   * transaction fails nothing of it stays: the session ends as failed, its holds given back, and
   * `discard` removes the committed blob.
   */
  async commit<R>(
    record: (tx: Executor) => Promise<R>,
    discard: () => Promise<unknown>,
  ): Promise<R> {
    this.assertOpen()
    this.stateValue = 'committing'
    try {
      await this.chain
      await this.checkpoints
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
    let result: R | undefined
    try {
      await this.end('committed', async (tx) => {
        result = await record(tx)
      })
    } catch (error) {
      await this.end('aborted')
      await discard().catch((failure: unknown) => this.registry.reportError(failure))
      throw error
    }
    return result as R
  }

  /**
   * Ends the session and discards its bytes; safe to call at any time, more than once, and never
   * rejects (a failure is reported). A commit under way is left to finish (its caller owns the
   * outcome), so no blob is torn mid-rename.
   */
  async abort(): Promise<void> {
    if (this.stateValue === 'open') await this.discard()
  }

  /**
   * The connection ended without `done` or an abort: a session whose client asked to resume it
   * keeps its bytes and its row (with its quota and request slot) for a resume, on any instance;
   * any other is aborted, its slot and quota free at once (spec: Upload slot inside a request,
   * socket closed before done).
   */
  suspend(): Promise<void> {
    if (this.stateValue !== 'open') return Promise.resolve()
    if (!this.link?.resumable) return this.abort()
    return this.rewind(this.link)
  }

  /**
   * Makes the session dormant at its last durable point, for its next connection or chunk to
   * continue from. Chunks held in memory for their turn are dropped (the client sends them
   * again). A chunk cut off mid-body takes this way whether or not the client asked to resume:
   * its retry continues the session at once.
   */
  private rewind(link: DurableLink): Promise<void> {
    if (this.stateValue !== 'open') return Promise.resolve()
    this.stateValue = 'suspended'
    this.registry.forget(this)
    this.dropWaiting()
    return this.registry.track(this.id, this.keep(link))
  }

  private async keep(link: DurableLink): Promise<void> {
    try {
      await this.chain
      await this.checkpoints.catch(() => undefined)
      await link.suspend(this.lastActivity)
    } catch (error) {
      this.registry.reportError(error)
      await this.discard()
    }
  }

  private dropWaiting(): void {
    for (const chunk of this.waiting.values()) this.registry.releaseBuffer(chunk.length)
    this.waiting.clear()
  }

  /** Discards the session's bytes and ends it, from any state but an ended one. */
  private async discard(): Promise<void> {
    if (this.stateValue === 'aborted' || this.stateValue === 'committed') return
    this.stateValue = 'aborted'
    this.dropWaiting()
    // The holds first: a request slot or quota freed by the end must be free the moment the
    // session is gone, not only once its partial blob has been removed. A store that cannot
    // discard now (an outage) leaves the partial bytes to the cleanup job's sweep of unfinished
    // writes: the session has ended either way, and this never throws.
    if (await this.end('aborted')) {
      await this.writer.abort().catch((error: unknown) => this.registry.reportError(error))
    } else await this.link?.writer.suspend(false).catch(() => undefined)
  }

  /**
   * Ends the session in one transaction (session-holds.ts): `record` (a commit's) is written, the
   * row deleted and the holds ended, kept on a commit. False when another instance took it over,
   * whose end it then is; a commit then fails, its record undone. An abort whose transaction fails
   * is reported: the row and its holds stay for the cleanup job, which ends the dormant session.
   */
  private async end(
    outcome: SessionOutcome,
    record?: (tx: Executor) => Promise<void>,
  ): Promise<boolean> {
    this.stateValue = outcome
    this.registry.forget(this)
    const link = this.link
    // Outside the transaction, which awaits nothing but its own statements.
    await link?.close()
    let ended = true
    try {
      ended = await this.registry.holdEnds.end(this.holds, outcome === 'committed', async (tx) => {
        await record?.(tx)
        const removed = link ? await link.remove(tx) : true
        if (!removed && record) throw new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
        return removed
      })
    } catch (error) {
      if (record) throw error
      this.registry.reportError(error)
    }
    if (!ended) return false
    for (const listener of this.endListeners) {
      try {
        await listener(outcome)
      } catch (error) {
        this.registry.reportError(error)
      }
    }
    return true
  }
}

/** The holds a streamed session's row names. */
function rowHolds(row: StreamedSessionRow): SessionHolds {
  return holdsOfRow({ ...row, quota: decodeQuotaHold(row.quota) })
}

/** A session that received nothing for this long is not waited for at shutdown. */
const DRAIN_QUIET_MS = 5000

export interface UploadSessionsOptions {
  blobs: BlobStore
  now?: () => number
  /** Bytes of chunk bodies held in memory across all sessions (FILE_UPLOAD_CHUNK_BUFFER). */
  bufferBudget?: number
  onError?: (error: unknown) => void
  /** The rows of durable sessions; without them every session lives in memory only. */
  records?: StreamedSessionRecords
  /** Where a session's holds end, in the transaction that ends it (session-holds.ts). */
  holdEnds: SessionHoldEnds
}

/**
 * What a kind of session (normal upload, upload into a request) makes of its row when it is
 * resumed: the session's settings and context (its holds are the row's own, session-holds.ts).
 */
export interface SessionKind<T> {
  restore(row: StreamedSessionRow): { spec: NewSession<T> }
}

/** How often this instance renews the holds of the sessions it has open. */
const HEARTBEAT_MS = 10_000

/**
 * How long a socket's resume waits for the connection holding its session on this instance to
 * end before it is refused with 409: long enough for an old socket to drain what it read.
 */
export const HOLDER_WAIT_MS = 3000

/**
 * How long, within HOLDER_WAIT_MS, the connection holding a session here has to answer the ping a
 * resume sends it before it is taken for dead and dropped (its client's network changed and no
 * close came), leaving the rest of the wait for its suspension to be recorded.
 */
export const HOLDER_PROBE_MS = 2000

/**
 * The registry of sessions under way on this instance. Durable sessions also have a row; one
 * whose connection ended is dormant (in no registry) until a resume reaches any instance.
 */
export class UploadSessions {
  private readonly sessions = new Map<string, UploadSession>()
  private bufferedBytes = 0
  private readonly blobs: BlobStore
  private readonly bufferBudget: number
  private readonly errorSink: (error: unknown) => void
  private readonly records: StreamedSessionRecords | undefined
  readonly holdEnds: SessionHoldEnds
  private readonly kinds = new Map<StreamedKind, SessionKind<unknown>>()
  /** This instance, as the holder of the sessions it has open. */
  readonly holder = randomUUID()
  private heartbeat: NodeJS.Timeout | undefined
  readonly now: () => number

  constructor(options: UploadSessionsOptions) {
    this.blobs = options.blobs
    this.now = options.now ?? Date.now
    this.bufferBudget = options.bufferBudget ?? 256 * 1024 * 1024
    this.errorSink = options.onError ?? ((error) => console.error(error))
    this.records = options.records
    this.holdEnds = options.holdEnds
    if (this.records) {
      const records = this.records
      this.heartbeat = setInterval(() => {
        if ([...this.sessions.values()].some((s) => s.durable)) {
          records.beat(this.holder).catch((error: unknown) => this.reportError(error))
        }
      }, HEARTBEAT_MS)
      this.heartbeat.unref()
    }
  }

  /** Registers how sessions of `kind` are restored from their rows. */
  registerKind<T>(kind: StreamedKind, handler: SessionKind<T>): void {
    this.kinds.set(kind, handler as SessionKind<unknown>)
  }

  /** Stops renewing holds; at shutdown, before the database closes. */
  stop(): void {
    clearInterval(this.heartbeat)
  }

  /**
   * Opens a session holding `holds`; with `durable` (and a database) it gets a row naming them
   * and a resumable writer, so it outlives its connection. When it cannot open, its holds are
   * given back with its row, if it got one.
   */
  async create<T>(
    spec: NewSession<T>,
    holds: SessionHolds,
    durable?: DurableSpec,
  ): Promise<UploadSession<T>> {
    const id = randomUUID()
    const records = this.records
    if (!durable || !records) {
      let writer: BlobWriter
      try {
        writer = await this.blobs.create(id)
      } catch (error) {
        await this.holdEnds.release(holds)
        throw error
      }
      const session = new UploadSession<T>(id, this, writer, spec, holds, this.now())
      this.sessions.set(id, session as UploadSession)
      return session
    }
    const now = this.now()
    try {
      await records.insert({
        id,
        ...durable,
        quota: encodeQuotaHold(holds.quota),
        declaredSize: spec.declaredSize,
        bytesWritten: 0,
        nextIndex: durable.transport === 'chunks' ? 0 : null,
        writerState: '',
        holder: this.holder,
        heartbeatAt: now,
        lastActivity: now,
        createdAt: now,
      })
    } catch (error) {
      await this.holdEnds.release(holds)
      throw error
    }
    let writer: ResumableWriter
    try {
      writer = await this.blobs.createResumable(id)
    } catch (error) {
      await this.holdEnds.end(holds, false, (tx) => records.remove(id, undefined, tx))
      throw error
    }
    const start = { offset: 0, nextIndex: 0 }
    const link = new DurableLink(
      id,
      durable.transport,
      durable.resumable,
      writer,
      records,
      this.holder,
      start,
      '',
    )
    const session = new UploadSession<T>(id, this, writer, spec, holds, now, link)
    this.sessions.set(id, session as UploadSession)
    return session
  }

  /**
   * Resumes the durable session `id` on this instance, from the largest durable point at or
   * below `offset` (`recorded`: the point its row holds, for chunks). `check` sees the row first
   * and refuses what it must (owner, kind, offset) while nothing has changed yet. 404 without a
   * row, 409 while a live connection holds it on another instance, or here for HOLDER_WAIT_MS
   * (the connection here is pinged first, and dropped when silent for HOLDER_PROBE_MS).
   */
  async resume<T>(
    id: string,
    check: (row: StreamedSessionRow) => void,
    offset: number | 'recorded',
  ): Promise<UploadSession<T>> {
    const records = this.records
    const found = records ? await records.find(id) : undefined
    if (!records || !found) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    const kind = this.kinds.get(found.kind)
    if (!kind) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    // A session whose client did not ask to resume it belongs to its connection alone; only its
    // own chunks continue it.
    if (!found.resumable && offset !== 'recorded') {
      throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
    check(found)
    const wanted = offset === 'recorded' ? found.bytesWritten : offset
    if (wanted > found.bytesWritten) throw new HttpError(400, ERROR_MESSAGES.invalidRequest)
    // A new socket's resume, its credentials proven, may find the old connection here still
    // draining what it read before the drop, not yet seeing its close: it waits for that end.
    // Chunk requests never wait: those of a session open here find it open.
    // A holder that no longer answers is pinged at once and dropped, rather than holding the
    // session until its keepalive ends it; one that answers keeps it.
    if (offset !== 'recorded') this.sessions.get(id)?.probe(HOLDER_PROBE_MS)
    if (offset !== 'recorded' && !(await this.leaves(id, HOLDER_WAIT_MS))) {
      throw new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
    }
    if (this.sessions.has(id)) throw new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
    // Its connection ended here a moment ago: the suspension records the point to resume from.
    await this.settled(id)
    if (this.sessions.has(id)) throw new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
    const row = await records.claim(id, this.holder)
    if (!row) {
      if (await records.find(id)) throw new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
      throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
    const point = {
      nextIndex: row.nextIndex,
      writerState: row.writerState,
      lastActivity: row.lastActivity,
    }
    try {
      // It moved between the look and the claim: refused as if it had been seen so.
      if (wanted > row.bytesWritten) throw new HttpError(400, ERROR_MESSAGES.invalidRequest)
      // Recorded before the bytes past it are dropped, so the row never claims more than is kept.
      await records.record(id, this.holder, { ...point, bytesWritten: wanted })
      const writer = await this.blobs.reopen(id, row.writerState, wanted)
      const from = writer.bytesWritten
      if (row.transport === 'chunks' && from !== wanted) {
        await writer.suspend(false)
        throw new Error(`Upload session ${id} cannot continue at chunk ${row.nextIndex}`)
      }
      const start = { offset: from, nextIndex: row.nextIndex ?? 0 }
      const link = new DurableLink(
        id,
        row.transport,
        row.resumable,
        writer,
        records,
        this.holder,
        start,
        row.writerState,
      )
      const { spec } = kind.restore(row)
      const session = new UploadSession<T>(
        id,
        this,
        writer,
        spec as NewSession<T>,
        rowHolds(row),
        this.now(),
        link,
        start,
      )
      // Idle time runs from the last bytes, not from the resume: resuming alone keeps nothing.
      session.lastActivity = row.lastActivity
      this.sessions.set(id, session as UploadSession)
      if (from !== wanted) await records.record(id, this.holder, { ...point, bytesWritten: from })
      return session
    } catch (error) {
      const kept = await records.find(id)
      await records.release(id, this.holder, { ...point, bytesWritten: kept?.bytesWritten ?? 0 })
      throw error
    }
  }

  /**
   * Ends the dormant sessions without a byte for `idleMs` that no live instance holds: their
   * rows, their quota and request slots, then their bytes. Returns how many ended.
   */
  async expireDormant(idleMs: number): Promise<number> {
    const records = this.records
    if (!records) return 0
    const rows = await records.claimIdle(this.now() - idleMs, this.holder)
    let ended = 0
    for (const row of rows) {
      if (!this.sessions.has(row.id) && (await this.endDormant(row))) ended++
    }
    return ended
  }

  /**
   * Ends the sessions whose client did not ask to resume them and whose instance is gone (with
   * `all`, at the start of the only instance: every one it does not hold), with their quota,
   * request slots and bytes (spec: Upload slot inside a request, server restart). Returns how
   * many ended.
   */
  async endUnresumable(all = false): Promise<number> {
    const records = this.records
    if (!records) return 0
    let ended = 0
    for (const row of await records.claimUnresumable(this.holder, all)) {
      if (!this.sessions.has(row.id) && (await this.endDormant(row))) ended++
    }
    return ended
  }

  /** The row of session `id` when it is not open on this instance. */
  async findDormant(id: string): Promise<StreamedSessionRow | undefined> {
    if (this.sessions.has(id)) return undefined
    return this.records?.find(id)
  }

  /**
   * Ends a session from its row (an explicit abort, or idle): the row and its quota and request
   * slot in one transaction, then its bytes. Answers false when it had ended already.
   */
  async endDormant(row: StreamedSessionRow): Promise<boolean> {
    const records = this.records
    if (!records) return false
    const removed = (tx: Executor) => records.remove(row.id, undefined, tx)
    if (!(await this.holdEnds.end(rowHolds(row), false, removed))) return false
    // No live session records this end (metrics/track-session.ts): the one instance whose delete
    // took the row counts it, with the bytes the row kept.
    recordUploadFailed(row.transport, row.bytesWritten)
    await this.blobs.discardResumable(row.id, row.writerState)
    return true
  }

  /** Ends the dormant sessions uploading into request `requestId` (it is being deleted). */
  async endDormantOfRequest(requestId: string): Promise<void> {
    for (const row of (await this.records?.ofRequest(requestId)) ?? []) {
      if (!this.sessions.has(row.id)) await this.endDormant(row)
    }
  }

  /** Ids of the sessions whose bytes must be kept: open here, or resumable anywhere. */
  async resumableIds(): Promise<Set<string>> {
    const ids = this.ids()
    for (const id of (await this.records?.ids()) ?? []) ids.add(id)
    return ids
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
    if (this.sessions.get(session.id) !== session) return
    this.sessions.delete(session.id)
    const waiting = this.leaving.get(session.id)
    this.leaving.delete(session.id)
    for (const left of waiting ?? []) left()
  }

  /** Resumes waiting for the session open here to leave (its connection to end), by id. */
  private readonly leaving = new Map<string, Set<() => void>>()

  /** Resolves true once no session `id` is open here, or false after `ms` while one still is. */
  private leaves(id: string, ms: number): Promise<boolean> {
    if (!this.sessions.has(id)) return Promise.resolve(true)
    return new Promise((resolve) => {
      const waiting = this.leaving.get(id) ?? new Set()
      this.leaving.set(id, waiting)
      const left = () => {
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        waiting.delete(left)
        if (waiting.size === 0 && this.leaving.get(id) === waiting) this.leaving.delete(id)
        resolve(false)
      }, ms)
      waiting.add(left)
    })
  }

  /** Resolves once a suspension of session `id` under way here is recorded (at once if none). */
  async settled(id: string): Promise<void> {
    await this.suspending.get(id)
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

  /**
   * At shutdown: sessions whose client asked to resume them are suspended for a resume after the
   * restart, others end;
   * resolves once every suspension under way is recorded.
   */
  async suspendAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.suspend()))
    await Promise.all(this.suspending.values())
  }

  /**
   * Suspensions under way, by session: shutdown waits for them before the database closes, and a
   * resume reaching this instance meanwhile waits for its session's.
   */
  private readonly suspending = new Map<string, Promise<void>>()

  track(id: string, suspension: Promise<void>): Promise<void> {
    this.suspending.set(id, suspension)
    const settled = () => this.suspending.delete(id)
    suspension.then(settled, settled)
    return suspension
  }
}
