/**
 * What the SQLite module needs of a driver, so that node:sqlite and better-sqlite3 are adapters
 * behind one shape (sqlite-node.ts, sqlite-driver.ts): statements whose rows come as arrays of
 * column values, with blobs as Buffers, and the few calls on the connection itself.
 * May touch: nothing (pure).
 */

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3'

/** SQLITE_DRIVER's values: auto picks node:sqlite where Node has it (sqlite-driver.ts). */
export const SQLITE_DRIVER_SETTINGS = ['auto', 'node', 'better-sqlite3'] as const
export type SqliteDriverSetting = (typeof SQLITE_DRIVER_SETTINGS)[number]

/** A prepared statement; rows are arrays of column values in the order of the query's columns. */
export interface SqliteStatement {
  /** Whether the statement returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean
  columns(): string[]
  run(params: unknown[]): void
  get(params: unknown[]): unknown[] | undefined
  all(params: unknown[]): unknown[][]
}

export interface SqliteConnection {
  readonly driver: SqliteDriverName
  readonly file: string
  readonly inTransaction: boolean
  prepare(text: string): SqliteStatement
  /** Runs SQL text that returns nothing the caller needs (BEGIN, a pragma that sets, DDL). */
  exec(text: string): void
  close(): void
}
