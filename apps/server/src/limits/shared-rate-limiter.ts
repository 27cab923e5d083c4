/**
 * The rate limit of rate-limiter.ts in PostgreSQL, one window per client for every instance: a
 * row holds the newest slot and the counts of the SLOTS + 1 slots up to it (newest first). Each
 * request is one `insert … on conflict do update … returning`, which locks the row, so concurrent
 * requests on any instance never overshoot. The client is its IP's daily HMAC (DailyIpHash), so
 * its window starts afresh at midnight UTC.
 * May touch: table rate_limit_windows.
 */
import { lt, sql } from 'drizzle-orm'

import { deleteRows, type Db } from '../db/client.js'
import type { DailyIpHash } from './quota.js'
import {
  limitResult,
  SLOTS,
  UNLIMITED,
  type RateLimit,
  type RateLimiterOptions,
  type RateLimitResult,
} from './rate-limiter.js'

const CLIENT = sql.placeholder('clientHash')
const SLOT = sql.placeholder('slot')
const MAX = sql.placeholder('max')

/** The upsert of one request, prepared once; in it `excluded` is the request's slot. */
function prepareHit(db: Db) {
  const { rateLimitWindows: table } = db.tables
  // Constants of the code, written into the statement so that their types are plain.
  const width = sql.raw(String(SLOTS + 1))
  const first = sql.raw(`'{${[1, ...new Array<number>(SLOTS).fill(0)].join(',')}}'`)
  const newest = sql`greatest(${table.slot}, excluded.slot)`
  const age = sql`(${newest} - ${table.slot})`
  // The counts moved on to the newest slot: `age` empty slots in front, the oldest dropped.
  const moved = sql`(case when ${age} >= ${width} then array_fill(0, array[${width}])
    else array_fill(0, array[${age}::integer]) || ${table.counts}[1 : (${width} - ${age})::integer]
    end)`
  const allowed = sql`((select coalesce(sum(c), 0) from unnest(${moved}) c) < ${MAX})`
  return db.query
    .insert(table)
    .values({ clientHash: CLIENT, slot: SLOT, counts: sql`${first}::integer[]`, allowed: true })
    .onConflictDoUpdate({
      target: table.clientHash,
      set: {
        slot: newest,
        counts: sql`case when ${allowed} then array[${moved}[1] + 1] || ${moved}[2:] else ${moved} end`,
        allowed,
      },
    })
    .returning({ slot: table.slot, counts: table.counts, allowed: table.allowed })
    .prepare('rate_limit_hit')
}

type SharedRateLimiterOptions = Omit<RateLimiterOptions, 'maxEntries'> & {
  db: Db
  ipHash: DailyIpHash
}

export class SharedRateLimiter implements RateLimit {
  readonly enabled: boolean
  private readonly slotMs: number
  private readonly hitStatement: ReturnType<typeof prepareHit>

  constructor(private readonly options: SharedRateLimiterOptions) {
    this.slotMs = options.windowMs / SLOTS
    this.enabled = options.max > 0
    this.hitStatement = prepareHit(options.db)
  }

  async hit(ip: string): Promise<RateLimitResult> {
    if (!this.enabled) return UNLIMITED
    const { max, ipHash } = this.options
    const now = this.options.now()
    const [row] = await this.hitStatement.execute({
      clientHash: ipHash.of(ip, now),
      slot: Math.floor(now / this.slotMs),
      max,
    })
    if (row === undefined) throw new Error('The rate limit upsert returned no row')
    // Newest first in the row; by slot number modulo SLOTS + 1 in the counts limitResult reads.
    const perSlot = new Array<number>(SLOTS + 1).fill(0)
    row.counts.forEach((count, age) => (perSlot[(row.slot - age) % (SLOTS + 1)] = count))
    const total = row.counts.reduce((sum, count) => sum + count, 0)
    const counts = { slot: row.slot, perSlot, total }
    return limitResult(counts, row.allowed, { max, slotMs: this.slotMs, now })
  }

  /** Deletes the windows whose newest slot has left the window. */
  async prune(): Promise<number> {
    const { db, now } = this.options
    const { rateLimitWindows } = db.tables
    const oldest = Math.floor(now() / this.slotMs) - SLOTS
    return deleteRows(db.query, rateLimitWindows, lt(rateLimitWindows.slot, oldest))
  }
}
