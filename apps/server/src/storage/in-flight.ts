/**
 * At most a set number of tasks running at once, started in the order asked: the parts an S3
 * writer uploads and those a join of stored chunks copies or sends. The first failure stops new
 * tasks and is thrown to whoever waits next; `drain()` and `settle()` wait for every started task,
 * so nothing lands after the caller cleans up.
 * May touch: nothing (pure).
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>()
  private failure: { error: unknown } | undefined
  private stopped = false

  constructor(private readonly limit: number) {}

  /** Starts `task` once a place is free: false when `stop()` came first, throws a failure. */
  async start(task: () => Promise<void>): Promise<boolean> {
    while (this.running.size >= this.limit && this.failure === undefined && !this.stopped) {
      await Promise.race(this.running)
    }
    this.throwIfFailed()
    if (this.stopped) return false
    const running: Promise<void> = task()
      .catch((error: unknown) => void (this.failure ??= { error }))
      .finally(() => this.running.delete(running))
    this.running.add(running)
    return true
  }

  /** Waits for every started task to settle, then throws the first failure if there was one. */
  async drain(): Promise<void> {
    await this.settle()
    this.throwIfFailed()
  }

  /** Waits for every started task to settle, whatever the outcome. */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled(this.running)
  }

  /** No task starts after this; those running go on. */
  stop(): void {
    this.stopped = true
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure.error
  }
}

/** Runs `work` over `items`, `limit` at once; the first failure is thrown once all settled. */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  const inFlight = new InFlight(limit)
  try {
    for (const [index, item] of items.entries()) {
      await inFlight.start(async () => {
        results[index] = await work(item, index)
      })
    }
  } finally {
    await inFlight.settle()
  }
  inFlight.throwIfFailed()
  return results
}
