/**
 * One chunk request of a chunked upload from its admission to its answer. The session admits it
 * on its headers alone (spec: POST /api/upload/:id/chunk), before any byte of the body is read;
 * the intake then takes the body piece by piece: the chunk that is next in order goes straight to
 * the blob writer, any other is held in memory against the session's window and the server's
 * buffer budget until its turn.
 * May touch: nothing directly; the session it is given (ChunkHost) writes and holds the bytes.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'

/** What an intake needs of its session; implemented by the session's ChunkOrder. */
export interface ChunkHost {
  readonly maxChunkSize: number
  /** Throws 404 once the session has ended. */
  assertOpen(): void
  /** Counts `bytes` more against the declared size; throws 400 when they would pass it. */
  reserveBytes(bytes: number): void
  unreserveBytes(bytes: number): void
  /** Takes `bytes` from the server's buffer budget; false when it is used up. */
  reserveBuffer(bytes: number): boolean
  releaseBuffer(bytes: number): void
  /** Appends bytes of the chunk that is streaming; resolves when the store has taken them. */
  stream(piece: Uint8Array): Promise<void>
  /** The streaming chunk is whole: the next index is due. Resolves once it is written. */
  streamed(index: number, length: number): Promise<number>
  /**
   * A chunk read into memory is whole: written when due (resolving once it is), else held for
   * its turn (resolving at once). Either way the session now owns its share of the budget.
   */
  buffered(index: number, mode: IntakeMode, parts: Uint8Array[], length: number): Promise<number>
  /** The request is over: `placed` once `finish` handed the chunk over, else how it ended. */
  released(index: number, mode: IntakeMode, outcome: IntakeOutcome): void
}

/**
 * `stream`: next in order with a known length, written as it arrives; `in-order`: next in order
 * without a Content-Length, read whole first; `out-of-order`: held until its turn.
 */
export type IntakeMode = 'stream' | 'in-order' | 'out-of-order'
/** `cut-off`: a streaming chunk broke off after some of its bytes were written. */
export type IntakeOutcome = 'placed' | 'dropped' | 'cut-off'

const chunkTooLarge = () => new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
const budgetUsedUp = () => new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)

export class ChunkIntake {
  private length = 0
  /** Bytes counted against the declared size and not yet accepted. */
  private reserved = 0
  /** Bytes taken from the buffer budget and not yet handed over to the session. */
  private budgeted = 0
  private readonly parts: Uint8Array[] = []
  private state: 'receiving' | 'placed' | 'ended' = 'receiving'

  constructor(
    private readonly host: ChunkHost,
    readonly index: number,
    readonly mode: IntakeMode,
    /** The body's Content-Length, when it has one: counted in full at admission. */
    private readonly declared: number | undefined,
    reservedAtAdmission: { bytes: number; budget: number },
  ) {
    this.reserved = reservedAtAdmission.bytes
    this.budgeted = reservedAtAdmission.budget
  }

  /**
   * Takes the next piece of the body; a streaming chunk returns the write, to be awaited before
   * the next piece is read. A body without a Content-Length is counted here and refused the
   * moment it passes a limit.
   */
  take(piece: Uint8Array): Promise<void> | undefined {
    this.host.assertOpen()
    this.length += piece.length
    if (this.declared === undefined) {
      if (this.length > this.host.maxChunkSize) throw chunkTooLarge()
      this.host.reserveBytes(piece.length)
      this.reserved += piece.length
      if (this.mode !== 'stream') {
        if (!this.host.reserveBuffer(piece.length)) throw budgetUsedUp()
        this.budgeted += piece.length
      }
    } else if (this.length > this.declared) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    if (this.mode === 'stream') return this.host.stream(piece)
    this.parts.push(piece)
    return undefined
  }

  /** The body ended: places the chunk and resolves with the bytes written so far. */
  async finish(): Promise<number> {
    this.host.assertOpen()
    if (this.length === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
    if (this.declared !== undefined && this.length !== this.declared) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    // From here the session owns the bytes, their place in the declared size and the budget.
    this.state = 'placed'
    this.host.unreserveBytes(this.reserved)
    this.reserved = 0
    this.budgeted = 0
    if (this.mode === 'stream') return this.host.streamed(this.index, this.length)
    return this.host.buffered(this.index, this.mode, this.parts.splice(0), this.length)
  }

  /** The request is over, whichever way; frees what an unplaced chunk still holds. */
  end(): void {
    if (this.state === 'ended') return
    const placed = this.state === 'placed'
    this.state = 'ended'
    if (!placed) {
      this.host.unreserveBytes(this.reserved)
      this.host.releaseBuffer(this.budgeted)
      this.parts.length = 0
    }
    const cutOff = !placed && this.mode === 'stream' && this.length > 0
    this.host.released(this.index, this.mode, placed ? 'placed' : cutOff ? 'cut-off' : 'dropped')
  }
}
