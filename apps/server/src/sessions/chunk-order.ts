/**
 * The order in which the chunks of a session held here reach its writer, as the host of its chunk
 * intakes (chunk-intake.ts): admits each chunk request on its index and length before the body is
 * read, streams the chunk due next into the writer, holds early ones in memory (within the
 * session's window and the server's buffer budget) until their turn, and counts the bodies under
 * way against the declared size. The session keeps it private, so no route or socket can take
 * these steps; it writes, checkpoints and ends only through the session.
 *
 * May touch: nothing (its session's writer only through the session).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import { ChunkIntake, type ChunkHost, type IntakeMode, type IntakeOutcome } from './chunk-intake.js'
import type { ResumePoint } from './durable-link.js'
import type { SessionLimits } from './session-limits.js'

/** What the chunk order needs of its session: its counts, its write chain and its end. */
export interface ChunkedSession {
  readonly limits: SessionLimits
  readonly declaredSize: number
  /** Bytes accepted so far: written, queued for writing, or waiting for an earlier chunk. */
  accepted(): number
  bytesWritten(): number
  /** Throws 404 once the session has ended. */
  assertOpen(): void
  /** Counts a whole chunk as accepted; throws 400 past the declared size. */
  accept(length: number): void
  /** Notes bytes arriving, for the idle timeout. */
  touch(): void
  /** Queues bytes on the write chain; resolves as the chain does, once they are written. */
  write(bytes: Uint8Array | readonly Uint8Array[]): Promise<void>
  /** The write chain as it stands: resolves once every write queued so far is done. */
  written(): Promise<void>
  /** Makes the chunks before `nextIndex`, ending at `end`, durable and records them. */
  checkpoint(nextIndex: number, end: number): Promise<void>
  /** A streaming chunk broke off after some of its bytes were written. */
  cutOff(): void
  /** Takes `bytes` from the server's buffer budget; false when it is used up. */
  reserveBuffer(bytes: number): boolean
  releaseBuffer(bytes: number): void
}

interface WaitingChunk {
  bytes: readonly Uint8Array[]
  length: number
}

const outOfOrder = () => new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)

export class ChunkOrder implements ChunkHost {
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
  private readonly limits: SessionLimits

  constructor(
    private readonly session: ChunkedSession,
    start: ResumePoint = { offset: 0, nextIndex: 0 },
  ) {
    this.limits = session.limits
    this.nextIndex = start.nextIndex
    this.orderedBytes = start.offset
  }

  get maxChunkSize(): number {
    return this.limits.maxChunkSize
  }

  assertOpen(): void {
    this.session.assertOpen()
  }

  /** Whether a chunk is under way or waits for its turn: the session cannot be whole. */
  get unfinished(): boolean {
    return this.waiting.size > 0 || this.receiving.size > 0
  }

  /**
   * Admits a chunk request on its index and Content-Length alone, before any byte of its body is
   * read (spec: POST /api/upload/:id/chunk). Throws 404 for an ended session, 400 for an index
   * already received or under way and for bytes past the declared size, 429 past the session's
   * requests in flight, its window of early chunks, or the server's buffer budget. The chunk due
   * next streams into the writer; any other is held in memory until its turn.
   */
  admit(index: number, declared: number | undefined): ChunkIntake {
    this.session.assertOpen()
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
    if (budget > 0 && !this.session.reserveBuffer(budget)) {
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
    if (this.session.accepted() + this.reserved + bytes > this.session.declaredSize) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    this.reserved += bytes
  }

  unreserveBytes(bytes: number): void {
    this.reserved -= bytes
  }

  reserveBuffer(bytes: number): boolean {
    return this.session.reserveBuffer(bytes)
  }

  releaseBuffer(bytes: number): void {
    this.session.releaseBuffer(bytes)
  }

  stream(piece: Uint8Array): Promise<void> {
    this.session.touch()
    return this.session.write(piece)
  }

  async streamed(index: number, length: number): Promise<number> {
    this.session.accept(length)
    this.streaming = false
    this.receiving.delete(index)
    this.nextIndex = index + 1
    this.orderedBytes += length
    const durable = this.session.checkpoint(this.nextIndex, this.orderedBytes)
    const written = this.session.written()
    this.releaseWaiting()
    await written
    await durable
    return this.session.bytesWritten()
  }

  async buffered(
    index: number,
    mode: IntakeMode,
    parts: Uint8Array[],
    length: number,
  ): Promise<number> {
    this.session.accept(length)
    this.receiving.delete(index)
    if (mode === 'out-of-order') this.receivingOutOfOrder--
    if (index !== this.nextIndex) {
      // Answered at once; the bytes wait in memory, within the budget taken for them.
      this.waiting.set(index, { bytes: parts, length })
      return this.session.bytesWritten()
    }
    this.session.write(parts)
    this.nextIndex++
    this.orderedBytes += length
    const durable = this.session.checkpoint(this.nextIndex, this.orderedBytes)
    const written = this.session.written()
    this.releaseWaiting()
    try {
      await written
    } finally {
      this.session.releaseBuffer(length)
    }
    await durable
    return this.session.bytesWritten()
  }

  released(index: number, mode: IntakeMode, outcome: IntakeOutcome): void {
    this.chunksInFlight--
    if (outcome === 'placed') return
    this.receiving.delete(index)
    if (mode === 'out-of-order') this.receivingOutOfOrder--
    if (mode === 'stream') this.streaming = false
    // Bytes already in the writer cannot be taken back: the chunk can never be sent again whole
    // to this writer. A durable session goes back to its last recorded chunk instead.
    if (outcome === 'cut-off') this.session.cutOff()
  }

  /** Moves chunks that were waiting for their turn onto the write chain, in order. */
  private releaseWaiting(): void {
    for (
      let next = this.waiting.get(this.nextIndex);
      next;
      next = this.waiting.get(this.nextIndex)
    ) {
      this.waiting.delete(this.nextIndex)
      const release = () => this.session.releaseBuffer(next!.length)
      // A failed write aborts the session (its write chain); here only the budget is returned.
      this.session.write(next.bytes).then(release, release)
      this.nextIndex++
      this.orderedBytes += next.length
      void this.session.checkpoint(this.nextIndex, this.orderedBytes)
    }
  }

  /** Drops the chunks held for their turn (the client sends them again) and frees their budget. */
  dropWaiting(): void {
    for (const chunk of this.waiting.values()) this.session.releaseBuffer(chunk.length)
    this.waiting.clear()
  }
}
