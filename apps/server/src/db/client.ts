/**
 * Opens the SQLite database under DATA_DIR in WAL mode and applies the committed migrations
 * (apps/server/drizzle) before anything else touches it. The driver (better-sqlite3) is named
 * only here and in checkpointer.ts; services reach the database through drizzle's query
 * builders on `Db`, or on the `Executor` of a transaction.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import Database, { type RunResult } from 'better-sqlite3'
import { count } from 'drizzle-orm'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'

import * as schema from './schema.js'

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database }

/**
 * The database or a transaction on it: what a helper that writes inside its caller's transaction
 * takes, so its statements belong to that transaction whatever the driver. Queries run
 * synchronously (`.get()`, `.all()`, `.run()`) on this driver.
 */
export type Executor = BaseSQLiteDatabase<'sync', RunResult, typeof schema>

/** The migrations folder, found from this module in both src/ and dist/. */
const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url))

export function openDatabase(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true })
  const sqlite = new Database(join(dataDir, 'fileshare.db'))
  sqlite.pragma('journal_mode = WAL')
  // In WAL mode NORMAL loses nothing when the process crashes, and never corrupts the file; a power
  // loss rolls back the commits since the last checkpoint (db/checkpointer.ts), which FULL would
  // avoid by an fsync per commit on this thread (docs/configuration.md, Durability).
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('foreign_keys = ON')
  const db = drizzle(sqlite, { schema })
  migrate(db, { migrationsFolder: MIGRATIONS })
  return db
}

/**
 * Whether the database answers a query that reads one of its tables (health check); `SELECT 1`
 * alone would answer even with the database file gone or emptied.
 */
export function databaseAnswers(db: Db): boolean {
  try {
    db.select({ n: count() }).from(schema.settings).get()
    return true
  } catch {
    return false
  }
}

/** Closes the connection; the last step of shutdown. */
export function closeDatabase(db: Db): void {
  db.$client.close()
}
