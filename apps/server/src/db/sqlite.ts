/**
 * The SQLite database under DATA_DIR: one connection in WAL mode, on node:sqlite or better-sqlite3
 * (sqlite-driver.ts), migrated from apps/server/drizzle, and reached by the services through
 * drizzle's asynchronous SQLite driver.
 *
 * The connection is one for the whole process, and a transaction on it spans several awaited
 * statements; so while one is open every statement from elsewhere waits at the gate, else it
 * would run inside that transaction (and be rolled back with it) or try to open a second one.
 * May touch: the file system (DATA_DIR, its SQLite file, and apps/server/drizzle); every table,
 * by migration.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { drizzle, type AsyncRemoteCallback } from 'drizzle-orm/sqlite-proxy'
import { migrate } from 'drizzle-orm/sqlite-proxy/migrator'

import type { Db, Executor, Tables } from './client.js'
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

export async function openSqlite(
  dataDir: string,
  driver: SqliteDriverSetting = 'auto',
): Promise<SqliteDb> {
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
    await migrate(db.query as never, (queries) => migrateIn(sqlite, queries), {
      migrationsFolder: MIGRATIONS,
    })
    return db
  } catch (error) {
    sqlite.close()
    throw error
  }
}

/** Applies the pending migrations' statements in one transaction, as drizzle's migrators do. */
async function migrateIn(sqlite: SqliteConnection, queries: string[]): Promise<void> {
  sqlite.exec('BEGIN')
  try {
    for (const query of queries) sqlite.exec(query)
    sqlite.exec('COMMIT')
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK')
    throw error
  }
}

/** The services' view of an open, migrated connection. */
export function sqliteDb(sqlite: SqliteConnection): SqliteDb {
  const run = statementRunner(sqlite)
  const gate = new TransactionGate()
  const outside: AsyncRemoteCallback = async (text, params, method) => {
    if (gate.isOpen) await gate.passed()
    return run(text, params, method)
  }
  const inside: AsyncRemoteCallback = async (text, params, method) => run(text, params, method)
  // Both typed as PostgreSQL's query builder, which the services are written against (client.ts).
  const query = drizzle(outside) as unknown as Executor
  const tx = drizzle(inside) as unknown as Executor
  return {
    dialect: 'sqlite',
    driver: sqlite.driver,
    tables: schema as unknown as Tables,
    query,
    connection: sqlite,
    transaction: (body) =>
      gate.hold(async () => {
        sqlite.exec('BEGIN')
        try {
          const result = await body(tx)
          sqlite.exec('COMMIT')
          return result
        } catch (error) {
          if (sqlite.inTransaction) sqlite.exec('ROLLBACK')
          throw error
        }
      }),
    close: async () => {
      sqlite.close()
    },
  }
}

type Method = Parameters<AsyncRemoteCallback>[2]

/** Runs a statement in the shape drizzle's SQLite proxy driver expects (rows as arrays). */
function statementRunner(
  sqlite: SqliteConnection,
): (text: string, params: unknown[], method: Method) => { rows: unknown[] } {
  const cache = new Map<string, SqliteStatement>()
  const prepare = (text: string): SqliteStatement => {
    let statement = cache.get(text)
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear()
      statement = sqlite.prepare(text)
      cache.set(text, statement)
    }
    return statement
  }
  return (text, params, method) => {
    const statement = prepare(text)
    if (!statement.reader) {
      statement.run(params)
      return { rows: [] }
    }
    // No row is `rows: undefined`, which drizzle's proxy driver maps to no result.
    if (method === 'get') return { rows: statement.get(params) as unknown[] }
    return { rows: statement.all(params) }
  }
}

/**
 * Lets one transaction at a time hold the connection; statements outside it pass only while
 * none is open.
 */
export class TransactionGate {
  private open: Promise<void> | undefined

  get isOpen(): boolean {
    return this.open !== undefined
  }

  /** Resolves once no transaction is open; at once when none is. */
  async passed(): Promise<void> {
    while (this.open) await this.open
  }

  async hold<T>(body: () => Promise<T>): Promise<T> {
    while (this.open) await this.open
    let release!: () => void
    this.open = new Promise((resolve) => (release = resolve))
    try {
      return await body()
    } finally {
      this.open = undefined
      release()
    }
  }
}
