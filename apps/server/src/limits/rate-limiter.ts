/**
 * The per-IP rate limit of every `/api` route (spec: Limits, rate limit: a per-IP sliding
 * window). Each IP counts the slot under way and the SLOTS before it, and a request is allowed
 * while they add up to less than `max` (refused ones are not counted). As the slots reach back a
 * whole window, no window ever holds more than `max`; a request may count up to one slot longer,
 * for SLOTS + 1 counters per IP instead of a time per request.
 * May touch: nothing (pure): its counts are its own memory.
 */
import { RecentMap } from './recent-map.js'
import { secondsUntil } from '../http-error.js'

/** Slots per window: how finely the window slides. */
export const SLOTS = 10

/** In this process's memory (RateLimiter, SQLite) or in the database (SharedRateLimiter). */
export interface RateLimit {
  readonly enabled: boolean
  /** Counts one request of `ip` if it is allowed and reports the state of its limit. */
  hit(ip: string): RateLimitResult | Promise<RateLimitResult>
  /** Forgets windows that no longer count anything. */
  prune(): Promise<number>
}

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

export interface Counts {
  /** The newest slot counted: `floor(time / slot length)`. */
  slot: number
  /** Requests per slot, slot `n` at `n % (SLOTS + 1)`, for the slots `slot - SLOTS` to `slot`. */
  perSlot: number[]
  total: number
}

const DEFAULT_MAX_ENTRIES = 100_000

export class RateLimiter implements RateLimit {
  readonly enabled: boolean
  private readonly slotMs: number
  /** Ordered by last request: every hit re-inserts its IP, so idle IPs sit in front. */
  private readonly counts: RecentMap<Counts>

  constructor(private readonly options: RateLimiterOptions) {
    this.slotMs = options.windowMs / SLOTS
    this.counts = new RecentMap(options.maxEntries ?? DEFAULT_MAX_ENTRIES)
    this.enabled = options.max > 0
  }

  hit(ip: string): RateLimitResult {
    const { max, now: clock } = this.options
    const now = clock()
    if (!this.enabled) return UNLIMITED
    const slot = Math.floor(now / this.slotMs)
    // An IP whose newest slot has left the window no longer counts anything.
    this.counts.dropStale((counts) => slot - counts.slot > SLOTS)
    const counts = this.advance(this.counts.get(ip), slot)
    this.counts.put(ip, counts)

    const allowed = counts.total < max
    if (allowed) {
      counts.perSlot[slot % (SLOTS + 1)]! += 1
      counts.total += 1
    }
    return limitResult(counts, allowed, { max, slotMs: this.slotMs, now })
  }

  /** Idle IPs are dropped as requests come. */
  prune(): Promise<number> {
    return Promise.resolve(0)
  }

  get size(): number {
    return this.counts.size
  }

  /** `counts` moved on to `slot`: the slots that left the window are emptied. */
  private advance(counts: Counts | undefined, slot: number): Counts {
    if (counts === undefined || slot - counts.slot > SLOTS) {
      return { slot, perSlot: new Array<number>(SLOTS + 1).fill(0), total: 0 }
    }
    for (let next = counts.slot + 1; next <= slot; next++) {
      const at = next % (SLOTS + 1)
      counts.total -= counts.perSlot[at]!
      counts.perSlot[at] = 0
    }
    counts.slot = slot
    return counts
  }
}

/** The state of a limit after a request, as the `X-RateLimit-*` and `Retry-After` headers say it. */
export function limitResult(
  counts: Counts,
  allowed: boolean,
  limit: { max: number; slotMs: number; now: number },
): RateLimitResult {
  const { max, slotMs, now } = limit
  return {
    allowed,
    limit: max,
    remaining: Math.max(0, max - counts.total),
    resetSec: Math.ceil(freedAt(counts, 0, now, slotMs) / 1000),
    retryAfterSec: allowed ? 0 : secondsUntil(freedAt(counts, max - 1, now, slotMs), now),
  }
}

/** When at most `left` of the counted requests still count; slot `n` leaves at `n + SLOTS + 1`. */
function freedAt(counts: Counts, left: number, now: number, slotMs: number): number {
  let total = counts.total
  for (let n = counts.slot - SLOTS; n <= counts.slot; n++) {
    if (total <= left) return n + SLOTS <= counts.slot ? now : (n + SLOTS) * slotMs
    total -= counts.perSlot[n % (SLOTS + 1)]!
  }
  return (counts.slot + SLOTS + 1) * slotMs
}

/** The disabled limit's answer: nothing counted, nothing labelled. */
export const UNLIMITED: RateLimitResult = {
  allowed: true,
  limit: 0,
  remaining: 0,
  resetSec: 0,
  retryAfterSec: 0,
}
