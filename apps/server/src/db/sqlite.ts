/**
 * The SQLite database under DATA_DIR: one connection for the process in WAL mode, on node:sqlite
 * or better-sqlite3, migrated from apps/server/drizzle, reached through drizzle's asynchronous
 * SQLite driver. A transaction spans awaited statements, so while one is open every statement
 * from elsewhere waits, else it would run inside it (and be rolled back with it).
 * May touch: the file system (DATA_DIR, its SQLite file, and apps/server/drizzle); every table,
 * by migration.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { drizzle, type AsyncRemoteCallback } from 'drizzle-orm/sqlite-proxy'
import { migrate } from 'drizzle-orm/sqlite-proxy/migrator'

import type { Db, Executor, Preparable, Prepared, Tables } from './client.js'
import * as schema from './schema.js'
import type { SqliteConnection, SqliteDriverSetting, SqliteStatement } from './sqlite-connection.js'
import { openSqliteConnection } from './sqlite-driver.js'

/** The migrations folder, found from this module in both src/ and dist/. */
const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** Distinct statements kept prepared; queries with variable-length lists make new ones. */
const STATEMENT_CACHE_SIZE = 256

export interface SqliteDb extends Db {
  /** The connection itself, for the WAL checkpointer (checkpointer.ts). */
  readonly connection: SqliteConnection
}

export async function openSqlite(dataDir: string, driver: SqliteDriverSetting = 'auto') {
  mkdirSync(dataDir, { recursive: true })
  const sqlite = await openSqliteConnection(join(dataDir, 'fileshare.db'), driver)
  try {
    sqlite.exec('PRAGMA journal_mode = WAL')
    // In WAL mode NORMAL loses nothing when the process crashes, and never corrupts the file; a
    // power loss rolls back the commits since the last checkpoint (db/checkpointer.ts), which FULL
    // would avoid by an fsync per commit on this thread (docs/configuration.md, Durability).
    sqlite.exec('PRAGMA synchronous = NORMAL')
    sqlite.exec('PRAGMA busy_timeout = 5000')
    sqlite.exec('PRAGMA foreign_keys = ON')
    const db = sqliteDb(sqlite)
    // The pending migrations' statements run in one transaction, as drizzle's migrators do.
    await migrate(
      db.query as never,
      (queries) => atomically(sqlite, async () => queries.forEach((query) => sqlite.exec(query))),
      { migrationsFolder: MIGRATIONS },
    )
    return db
  } catch (error) {
    sqlite.close()
    throw error
  }
}

async function atomically<T>(sqlite: SqliteConnection, body: () => Promise<T>): Promise<T> {
  sqlite.exec('BEGIN')
  try {
    const result = await body()
    sqlite.exec('COMMIT')
    return result
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK')
    throw error
  }
}

function sqliteDb(sqlite: SqliteConnection): SqliteDb {
  const statements = new Map<string, SqliteStatement>()
  // Runs a statement in the shape drizzle's SQLite proxy driver expects (rows as arrays).
  const run: AsyncRemoteCallback = async (text, params, method) => {
    let statement = statements.get(text)
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
      statement = sqlite.prepare(text)
      statements.set(text, statement)
    }
    if (!statement.reader) {
      statement.run(params)
      return { rows: [] }
    }
    // No row is `rows: undefined`, which drizzle's proxy driver maps to no result.
    if (method === 'get') return { rows: statement.get(params) as unknown[] }
    return { rows: statement.all(params) }
  }
  // Settled when the open transaction ends; undefined while none is open.
  let open: Promise<void> | undefined
  const outside: AsyncRemoteCallback = async (text, params, method) => {
    while (open) await open
    return run(text, params, method)
  }
  // Both typed as PostgreSQL's query builder, which the services are written against (client.ts).
  const query = drizzle(outside) as unknown as Executor
  const tx = drizzle(run) as unknown as Executor
  return {
    dialect: 'sqlite',
    driver: sqlite.driver,
    tables: schema as unknown as Tables,
    query,
    connection: sqlite,
    async transaction(body) {
      while (open) await open
      let release!: () => void
      open = new Promise((resolve) => (release = resolve))
      try {
        return await atomically(sqlite, () => body(tx))
      } finally {
        open = undefined
        release()
      }
    },
    prepare<R>(build: (on: Executor) => Preparable<R>): Prepared<R> {
      // Built on first use on each of the two executors, kept while the database is open.
      const built = new Map<Executor, ReturnType<Preparable<R>['prepare']>>()
      return {
        run(on, values) {
          let statement = built.get(on)
          if (!statement) {
            statement = build(on).prepare('')
            built.set(on, statement)
          }
          return statement.execute(values)
        },
      }
    },
    close: async () => {
      sqlite.close()
    },
  }
}
