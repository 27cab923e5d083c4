/**
 * Per-client counts of one UTC day: requests created, those asking for mail, abuse reports. A
 * count is one conditional upsert, so callers racing on any instance never pass the limit.
 * May touch: table request_daily_counts.
 */
import { lt } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { increment } from '../db/expressions.js'
import { secondsUntil } from '../http-error.js'

export const DAY_MS = 86_400_000

export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS
}

/** Counts one for `clientKey` today unless `limit` are: null, else the seconds to `Retry-After`. */
export async function countToday(
  tx: Executor,
  tables: Db['tables'],
  clientKey: string,
  limit: number,
  now: number,
): Promise<number | null> {
  const { requestDailyCounts } = tables
  const day = dayStart(now)
  const [counted] = await tx
    .insert(requestDailyCounts)
    .values({ clientKey, dayStart: day, count: 1 })
    .onConflictDoUpdate({
      target: [requestDailyCounts.clientKey, requestDailyCounts.dayStart],
      set: { count: increment(requestDailyCounts.count) },
      setWhere: lt(requestDailyCounts.count, limit),
    })
    .returning({ count: requestDailyCounts.count })
  return counted === undefined ? secondsUntil(day + DAY_MS, now) : null
}
