/**
 * The hand-over of a chunk request's body to the blob store while it arrives: the request writes
 * each piece it reads, the store iterates them in order. The feed holds `holdBytes` between the
 * two, and up to the whole chunk with bytes borrowed from the server's chunk buffer while it has
 * them, so that a body arrives at the network's pace while the store writes behind it; past that
 * it asks the request to wait. Pieces pass as they came, never joined or copied.
 * May touch: nothing outside this module (the budget it is given).
 */

/** Where a feed borrows the bytes it holds past `holdBytes` (limits/receive-budget.ts). */
export interface FeedBudget {
  tryTake(bytes: number): boolean
  give(bytes: number): void
}

/** Borrowed in steps of this many bytes, so that a feed asks the budget once per step. */
const BORROW_STEP = 1024 * 1024

export class ChunkFeed implements AsyncIterable<Uint8Array> {
  private readonly pieces: Uint8Array[] = []
  private bytes = 0
  /** Bytes taken from the budget, which the feed may hold past `holdBytes`. */
  private borrowed = 0
  private ended = false
  private failure: { error: Error } | undefined
  /** The store's read, waiting for a piece, the end or a failure. */
  private wakeReader: (() => void) | undefined
  /** The request's wait for room, and what ends it. */
  private room: { promise: Promise<void>; resolve: () => void } | undefined

  constructor(
    private readonly holdBytes: number,
    /** The most the feed may hold with what it borrows: the chunk's length. */
    private readonly mostBytes = holdBytes,
    private readonly budget?: FeedBudget,
  ) {}

  /** Whether the feed was destroyed: the store's read fails, or has failed. */
  get destroyed(): boolean {
    return this.failure !== undefined
  }

  /** Queues `piece`; false once the feed is full, when `drained()` says when to go on. */
  write(piece: Uint8Array): boolean {
    if (this.ended || this.failure) throw new Error('The chunk feed is closed')
    this.pieces.push(piece)
    this.bytes += piece.length
    this.wake()
    if (this.bytes < this.limit) return true
    this.borrow()
    return this.bytes < this.limit
  }

  /** Resolves once the store has taken the feed below its limit, or the feed has failed. */
  drained(): Promise<void> {
    if (this.bytes < this.limit || this.failure) return Promise.resolve()
    if (!this.room) {
      let resolve!: () => void
      const promise = new Promise<void>((done) => (resolve = done))
      this.room = { promise, resolve }
    }
    return this.room.promise
  }

  /** No piece follows: the store's read ends after the pieces queued. */
  end(): void {
    this.ended = true
    this.giveBack()
    this.wake()
  }

  /**
   * Fails the store's read with `error` unless the feed has ended, drops what it holds and gives
   * back what it borrowed; call it once the feed is no longer needed, whatever became of it. The
   * error is made only when the read is failed.
   */
  destroy(error: () => Error): void {
    if (!this.ended && !this.failure) this.failure = { error: error() }
    if (this.failure) {
      this.pieces.length = 0
      this.bytes = 0
    }
    this.budget?.give(this.borrowed)
    this.borrowed = 0
    this.wake()
    this.openRoom()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    let taken = 0
    for (;;) {
      if (this.failure) throw this.failure.error
      if (taken < this.pieces.length) {
        const piece = this.pieces[taken]!
        this.pieces[taken++] = EMPTY
        this.bytes -= piece.length
        if (taken === this.pieces.length) {
          this.pieces.length = 0
          taken = 0
        }
        this.giveBack()
        if (this.bytes < this.limit) this.openRoom()
        yield piece
        continue
      }
      if (this.ended) return
      await new Promise<void>((resolve) => (this.wakeReader = resolve))
    }
  }

  private get limit(): number {
    return this.holdBytes + this.borrowed
  }

  /** Borrows the next step, if the chunk and the budget leave room for it. */
  private borrow(): void {
    const step = Math.min(BORROW_STEP, this.mostBytes - this.limit)
    if (step > 0 && this.budget?.tryTake(step)) this.borrowed += step
  }

  /**
   * Gives back the whole steps the bytes it holds no longer need, but one to write on into while
   * it is ahead of the store at all: a feed the store has caught up with holds none of the budget.
   */
  private giveBack(): void {
    const needed = Math.ceil(Math.max(0, this.bytes - this.holdBytes) / BORROW_STEP) * BORROW_STEP
    const keep = this.ended || needed === 0 ? needed : needed + BORROW_STEP
    if (this.borrowed <= keep) return
    this.budget?.give(this.borrowed - keep)
    this.borrowed = keep
  }

  private wake(): void {
    const wake = this.wakeReader
    this.wakeReader = undefined
    wake?.()
  }

  private openRoom(): void {
    const room = this.room
    this.room = undefined
    room?.resolve()
  }
}

const EMPTY = new Uint8Array(0)
