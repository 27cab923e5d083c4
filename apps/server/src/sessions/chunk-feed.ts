/**
 * The hand-over of a chunk request's body to the blob store while it arrives: the request writes
 * each piece it reads, the store iterates them in order, and the feed holds at most a bounded
 * number of bytes between the two before it asks the request to wait. Pieces pass as they came,
 * never joined or copied.
 * May touch: nothing outside this module.
 */

export class ChunkFeed implements AsyncIterable<Uint8Array> {
  private readonly pieces: Uint8Array[] = []
  private bytes = 0
  private ended = false
  private failure: { error: Error } | undefined
  /** The store's read, waiting for a piece, the end or a failure. */
  private wakeReader: (() => void) | undefined
  /** The request's wait for room, and what ends it. */
  private room: { promise: Promise<void>; resolve: () => void } | undefined

  constructor(private readonly holdBytes: number) {}

  /** Whether the feed was destroyed: the store's read fails, or has failed. */
  get destroyed(): boolean {
    return this.failure !== undefined
  }

  /** Queues `piece`; false once the feed holds `holdBytes` or more, when `drained()` says when to go on. */
  write(piece: Uint8Array): boolean {
    if (this.ended || this.failure) throw new Error('The chunk feed is closed')
    this.pieces.push(piece)
    this.bytes += piece.length
    this.wake()
    return this.bytes < this.holdBytes
  }

  /** Resolves once the store has taken the feed below `holdBytes`, or the feed has failed. */
  drained(): Promise<void> {
    if (this.bytes < this.holdBytes || this.failure) return Promise.resolve()
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
    this.wake()
  }

  /** Fails the store's read with `error`, dropping what is queued; a no-op once ended. */
  destroy(error: Error): void {
    if (this.ended || this.failure) return
    this.failure = { error }
    this.pieces.length = 0
    this.bytes = 0
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
        if (this.bytes < this.holdBytes) this.openRoom()
        yield piece
        continue
      }
      if (this.ended) return
      await new Promise<void>((resolve) => (this.wakeReader = resolve))
    }
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
