/**
 * A seeded pseudo-random stream (mulberry32): the chaos run draws its fault schedule and its
 * workload from it, so that one seed draws the same choices again. Not for anything secret.
 * May touch: nothing beyond itself.
 */
export class Seeded {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A stream of its own for `label`, the same for the same seed and label whatever is drawn here. */
  static derive(seed: number, label: string): Seeded {
    let hash = seed >>> 0
    for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x9e3779b1) >>> 0
    return new Seeded(hash)
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('nothing to pick from')
    return items[Math.floor(this.next() * items.length)]!
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  /** A key of `weights` drawn in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as Array<[K, number]>
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0)
    let at = this.next() * total
    for (const [key, weight] of entries) {
      at -= weight
      if (at < 0) return key
    }
    return entries[entries.length - 1]![0]
  }

  /** A size from 1 to `max` bytes, spread evenly over the orders of magnitude. */
  size(max: number): number {
    return Math.max(1, Math.floor(Math.exp(this.next() * Math.log(max))))
  }
}
