/**
 * The per-IP rate limit of rate-limiter.ts kept in PostgreSQL, so that every instance behind a
 * load balancer counts against one window per client. One row per client holds the newest slot
 * and the counts of the SLOTS + 1 slots up to it (newest first). Each request is one
 * `insert … on conflict do update … returning`: the conflicting row is locked while its window is
 * moved on to the request's slot, its counts summed and the request counted only below the limit,
 * so concurrent requests on any instance are counted one after the other and never overshoot.
 *
 * The client is stored as the daily HMAC of its IP (quota.ts, DailyIpHash), never in clear; as
 * the hashes of one day cannot be linked to the next, a client's window starts afresh at midnight
 * UTC.
 */
import { lt, sql } from 'drizzle-orm'

import type { Db } from '../../db/client.js'
import type { DailyIpHash } from './quota.js'
import {
  limitResult,
  SLOTS,
  UNLIMITED,
  type RateLimit,
  type RateLimiterOptions,
  type RateLimitResult,
} from './rate-limiter.js'

type WindowRow = {
  slot: number
  counts: number[]
  allowed: boolean
}

export class SharedRateLimiter implements RateLimit {
  readonly enabled: boolean
  private readonly db: Db
  private readonly ipHash: DailyIpHash
  private readonly slotMs: number
  private readonly max: number
  private readonly now: () => number

  constructor(options: Omit<RateLimiterOptions, 'maxEntries'> & { db: Db; ipHash: DailyIpHash }) {
    this.db = options.db
    this.ipHash = options.ipHash
    this.slotMs = options.windowMs / SLOTS
    this.max = options.max
    this.now = options.now
    this.enabled = options.max > 0
  }

  async hit(ip: string): Promise<RateLimitResult> {
    if (!this.enabled) return UNLIMITED
    const now = this.now()
    const row = await this.count(this.ipHash.of(ip, now), Math.floor(now / this.slotMs))
    // Newest first in the row; by slot number modulo SLOTS + 1 in the counts limitResult reads.
    const perSlot = new Array<number>(SLOTS + 1).fill(0)
    row.counts.forEach((count, age) => (perSlot[(row.slot - age) % (SLOTS + 1)] = count))
    const total = row.counts.reduce((sum, count) => sum + count, 0)
    return limitResult({ slot: row.slot, perSlot, total }, row.allowed, {
      max: this.max,
      slotMs: this.slotMs,
      now,
    })
  }

  /** Deletes the windows whose newest slot has left the window. */
  async prune(): Promise<number> {
    const { rateLimitWindows } = this.db.tables
    const oldest = Math.floor(this.now() / this.slotMs) - SLOTS
    const removed = await this.db.query
      .delete(rateLimitWindows)
      .where(lt(rateLimitWindows.slot, oldest))
      .returning({ slot: rateLimitWindows.slot })
    return removed.length
  }

  /**
   * Counts a request of `clientHash` in `slot` if the window allows it; answers the window after
   * it. A window is moved on to the newer of its slot and the request's, so an instance whose
   * clock lags a little counts in the newest slot rather than reopening an old one.
   */
  private async count(clientHash: string, slot: number): Promise<WindowRow> {
    const { rateLimitWindows: table } = this.db.tables
    // An array literal: drizzle would spread a JavaScript array into a list of parameters.
    const first = `{${[1, ...new Array<number>(SLOTS).fill(0)].join(',')}}`
    // A constant of the code, written into the statement so that its type is plain.
    const width = sql.raw(String(SLOTS + 1))
    const result = await this.db.query.execute<WindowRow>(sql`
      insert into ${table} as r (client_hash, slot, counts, allowed)
      values (${clientHash}, ${slot}, ${first}::integer[], true)
      on conflict (client_hash) do update set (slot, counts, allowed) = (
        select moved.slot,
          case when moved.total < ${this.max}
            then array[moved.counts[1] + 1] || moved.counts[2:]
            else moved.counts end,
          moved.total < ${this.max}
        from (
          select shifted.slot, shifted.counts,
            (select coalesce(sum(c), 0) from unnest(shifted.counts) c) as total
          from (
            select newest.slot,
              case when newest.slot - r.slot >= ${width} then array_fill(0, array[${width}])
                else array_fill(0, array[(newest.slot - r.slot)::integer])
                  || r.counts[1 : (${width} - (newest.slot - r.slot))::integer] end as counts
            from (select greatest(r.slot, excluded.slot) as slot) newest
          ) shifted
        ) moved
      )
      returning slot, counts, allowed`)
    const row = result.rows[0]
    if (row === undefined) throw new Error('The rate limit upsert returned no row')
    // A raw statement's `bigint` comes back as text.
    return { slot: Number(row.slot), counts: row.counts.map(Number), allowed: row.allowed }
  }
}
