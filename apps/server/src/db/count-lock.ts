/**
 * The lock that makes a count and the insert it allows one step: SQLite runs one transaction at a
 * time already; on PostgreSQL a transaction-scoped advisory lock on (class, key) makes concurrent
 * transactions that count the same rows take turns.
 * May touch: a PostgreSQL advisory lock in the caller's transaction; no table.
 */
import { sql } from 'drizzle-orm'

import type { Db, Executor } from './client.js'

/** Takes the lock for `key` of `lockClass` until `tx` ends; call it before counting. */
export async function lockCount(
  db: Db,
  tx: Executor,
  lockClass: number,
  key: string,
): Promise<void> {
  if (db.dialect !== 'postgres') return
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${lockClass}, hashtext(${key}))`)
}
