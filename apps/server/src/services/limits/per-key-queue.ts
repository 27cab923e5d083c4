/**
 * Runs asynchronous tasks one after another per key, so a check and the write it leads to are not
 * interleaved with another task of the same key across their awaits.
 */
export class PerKeyQueue {
  private readonly tails = new Map<string, Promise<void>>()

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key)
    const result = previous ? previous.then(task) : task()
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }
}
