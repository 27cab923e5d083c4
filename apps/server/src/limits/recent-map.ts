/**
 * The memory of the in-process limits: a Map in order of last write that forgets the least
 * recently written key when full, so a flood of new IPs costs bounded memory.
 * May touch: nothing (pure).
 */
export class RecentMap<V> {
  private readonly entries = new Map<string, V>()

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key)
  }

  /** Stores `value` as the newest entry; when full, the oldest other entry goes first. */
  put(key: string, value: V): void {
    this.entries.delete(key)
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next()
      if (oldest.done !== true) this.entries.delete(oldest.value)
    }
    this.entries.set(key, value)
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  /** Drops entries from the oldest while `stale` holds, stopping at the first that matters. */
  dropStale(stale: (value: V) => boolean): void {
    for (const [key, value] of this.entries) {
      if (!stale(value)) return
      this.entries.delete(key)
    }
  }

  get size(): number {
    return this.entries.size
  }
}
