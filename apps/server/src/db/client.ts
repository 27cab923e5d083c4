/**
 * The database the services use, SQLite (under DATA_DIR) or PostgreSQL (DATABASE_URL), behind
 * one interface: drizzle's query builders typed as PostgreSQL's, the open dialect's tables, and
 * one `transaction(body)`. Only db/sqlite.ts and db/postgres.ts name a driver.
 * May touch: table settings (the health check's read); a PostgreSQL advisory lock in the caller's
 * transaction (lockCount); the rows of the table a caller hands to deleteRows.
 */
import { count, sql, type SQL } from 'drizzle-orm'
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgTable } from 'drizzle-orm/pg-core'

import type * as schema from './schema-pg.js'

/** The tables as services see them; on SQLite these are schema.ts's tables under the same names. */
export type Tables = typeof schema

/** Where statements run: the database, or the caller's transaction a helper writes in. */
export type Executor = PgDatabase<NodePgQueryResultHKT>

export interface Db {
  readonly dialect: 'sqlite' | 'postgres'
  /** The driver it runs on, for the start-up line: node:sqlite, better-sqlite3 or pg. */
  readonly driver: string
  readonly tables: Tables
  readonly query: Executor
  /**
   * Runs `body` in one transaction, rolled back when it throws. The body awaits nothing but its
   * statements on `tx` (no storage, no timers): on SQLite every other statement waits meanwhile.
   */
  transaction<T>(body: (tx: Executor) => Promise<T>): Promise<T>
  /**
   * A statement `build` makes with placeholders (`sql.placeholder`), for the hot paths: on SQLite
   * built once per executor (the database's one connection has two), on PostgreSQL built on each
   * run, since a transaction there has a client of its own.
   */
  prepare<R>(build: (on: Executor) => Preparable<R>): Prepared<R>
  close(): Promise<void>
}

type Values = Record<string, unknown>

/** A drizzle query builder with placeholders: it runs with their values, or prepares itself. */
export interface Preparable<R> {
  execute(values?: Values): Promise<R>
  prepare(name: string): { execute(values?: Values): Promise<R> }
}

/** A statement of `Db.prepare`: runs on the database's `query` or a transaction's executor. */
export interface Prepared<R> {
  run(on: Executor, values: Values): Promise<R>
}

/** Whether a table can be read (health check): `SELECT 1` answers even with the file gone. */
export async function databaseAnswers(db: Db): Promise<boolean> {
  try {
    await db.query.select({ n: count() }).from(db.tables.settings)
    return true
  } catch {
    return false
  }
}

/** Deletes the rows of `table` that `where` picks, on `on`; answers how many went. */
export async function deleteRows(
  on: Executor,
  table: PgTable,
  where: SQL | undefined,
): Promise<number> {
  const removed = await on
    .delete(table)
    .where(where)
    .returning({ one: sql`1` })
  return removed.length
}

/**
 * Makes a count and the insert it allows one step: call it in `tx` before counting. SQLite runs
 * one transaction at a time; on PostgreSQL a transaction-scoped advisory lock makes them take turns.
 */
export async function lockCount(db: Db, tx: Executor, lockClass: number, key: string) {
  if (db.dialect !== 'postgres') return
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${lockClass}, hashtext(${key}))`)
}
