/**
 * A budget of bytes this process holds in memory for uploads: one for its upload sockets
 * (FILE_UPLOAD_WS_BUFFER_BUDGET), one for chunk bodies (FILE_UPLOAD_CHUNK_BUFFER). A holder takes
 * what it is about to hold before it reads it, or waits with reading paused; bytes already in
 * memory are counted whether or not they fit, so the count is never below the truth.
 * May touch: nothing (pure): the budget is its own memory.
 */

interface Waiter {
  bytes: number
  grant: () => void
}

export class ReceiveBudget {
  /** Bytes counted now, and at the most at once; others only read them. */
  usedBytes = 0
  peakBytes = 0
  /** In arrival order; the first that fits is served first. */
  private readonly waiters = new Set<Waiter>()
  private wakeQueued = false

  constructor(readonly limit: number) {}

  /** For tests and debugging: sockets waiting. */
  get waitingCount(): number {
    return this.waiters.size
  }

  tryTake(bytes: number): boolean {
    if (this.usedBytes + bytes > this.limit) return false
    this.force(bytes)
    return true
  }

  /** Counts bytes that are held already, whether or not they fit. */
  force(bytes: number): void {
    this.usedBytes += bytes
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes
  }

  give(bytes: number): void {
    if (bytes <= 0) return
    this.usedBytes -= bytes
    if (this.waiters.size > 0 && !this.wakeQueued) {
      this.wakeQueued = true
      // Out of the caller's step, so a grant never runs inside another socket's read.
      queueMicrotask(() => this.wake())
    }
  }

  /** Counts `bytes` and calls `grant` once they fit, even past larger waiters; answers a cancel. */
  wait(bytes: number, grant: () => void): () => void {
    const waiter = { bytes, grant }
    this.waiters.add(waiter)
    return () => this.waiters.delete(waiter)
  }

  private wake(): void {
    this.wakeQueued = false
    for (const waiter of this.waiters) {
      if (this.usedBytes + waiter.bytes > this.limit) continue
      this.waiters.delete(waiter)
      this.force(waiter.bytes)
      waiter.grant()
    }
  }
}
