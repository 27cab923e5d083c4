/**
 * The per-IP rate limit of every `/api` route (spec: Limits, rate limit): a sliding window
 * approximated from two fixed buckets, so each IP costs a few numbers of memory however many
 * requests it makes.
 *
 * The estimate for the last `windowMs` is `previous × (1 − elapsed fraction of the current
 * bucket) + current`, assuming the previous bucket's requests were spread evenly. A request is
 * allowed while that estimate is below `max`; refused requests are not counted.
 */

export interface RateLimiterOptions {
  windowMs: number
  /** Requests per window and IP; 0 turns the limit off. */
  max: number
  now: () => number
  /** Most IPs remembered; beyond it the least recently seen IP is forgotten. */
  maxEntries?: number
}

export interface RateLimitResult {
  allowed: boolean
  limit: number
  /** Requests this IP may still make right now. */
  remaining: number
  /** Unix time in seconds at which the whole limit is available again if the IP stays quiet. */
  resetSec: number
  /** Whole seconds until the next request is allowed; 0 when this one was. */
  retryAfterSec: number
}

interface Buckets {
  /** Start of the current bucket, a multiple of the window. */
  start: number
  previous: number
  current: number
}

const DEFAULT_MAX_ENTRIES = 100_000

export class RateLimiter {
  readonly enabled: boolean
  private readonly windowMs: number
  private readonly max: number
  private readonly now: () => number
  private readonly maxEntries: number
  /** Ordered by last request: every hit re-inserts its IP, so idle IPs sit in front. */
  private readonly buckets = new Map<string, Buckets>()

  constructor(options: RateLimiterOptions) {
    this.windowMs = options.windowMs
    this.max = options.max
    this.now = options.now
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
    this.enabled = options.max > 0
  }

  /** Counts one request of `ip` if it is allowed and reports the state of its limit. */
  hit(ip: string): RateLimitResult {
    const now = this.now()
    if (!this.enabled) {
      return { allowed: true, limit: 0, remaining: 0, resetSec: 0, retryAfterSec: 0 }
    }
    const start = Math.floor(now / this.windowMs) * this.windowMs
    this.dropIdle(start)
    const buckets = this.roll(this.buckets.get(ip), start)
    this.buckets.delete(ip)
    if (this.buckets.size >= this.maxEntries) this.evictOldest()
    this.buckets.set(ip, buckets)

    const allowed = this.estimate(buckets, now) < this.max
    if (allowed) buckets.current += 1
    const remaining = Math.max(0, Math.ceil(this.max - this.estimate(buckets, now)))
    const resetMs = buckets.current > 0 ? start + 2 * this.windowMs : start + this.windowMs
    return {
      allowed,
      limit: this.max,
      remaining,
      resetSec: Math.ceil(resetMs / 1000),
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((this.nextSlotAt(buckets) - now) / 1000)),
    }
  }

  /** Number of IPs remembered; for tests and diagnostics. */
  get size(): number {
    return this.buckets.size
  }

  private roll(buckets: Buckets | undefined, start: number): Buckets {
    if (buckets === undefined || buckets.start < start - this.windowMs) {
      return { start, previous: 0, current: 0 }
    }
    if (buckets.start < start) return { start, previous: buckets.current, current: 0 }
    return buckets
  }

  private estimate(buckets: Buckets, now: number): number {
    const elapsed = (now - buckets.start) / this.windowMs
    return buckets.previous * (1 - elapsed) + buckets.current
  }

  /**
   * When the estimate drops below `max` again. Inside the current bucket only the previous
   * bucket's share decays; once `current` alone reaches `max` (it never exceeds it, as refused
   * requests are not counted), the next bucket opens with `current` as its decaying share.
   */
  private nextSlotAt(buckets: Buckets): number {
    const { start, previous, current } = buckets
    // One millisecond past the instant the estimate equals max, as the comparison is strict.
    if (current < this.max && previous > 0) {
      return start + this.windowMs * (1 - (this.max - current) / previous) + 1
    }
    return start + this.windowMs * (2 - this.max / current) + 1
  }

  /** An IP whose requests all lie before the previous bucket no longer affects its estimate. */
  private dropIdle(start: number): void {
    for (const [ip, buckets] of this.buckets) {
      if (buckets.start >= start - this.windowMs) return
      this.buckets.delete(ip)
    }
  }

  private evictOldest(): void {
    const oldest = this.buckets.keys().next()
    if (oldest.done !== true) this.buckets.delete(oldest.value)
  }
}
