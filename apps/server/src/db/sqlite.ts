/**
 * The SQLite database under DATA_DIR: one better-sqlite3 connection in WAL mode, migrated from
 * apps/server/drizzle, and reached by the services through drizzle's asynchronous SQLite driver.
 *
 * The connection is one for the whole process, and a transaction on it spans several awaited
 * statements; so while one is open every statement from elsewhere waits at the gate, else it
 * would run inside that transaction (and be rolled back with it) or try to open a second one.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import Database from 'better-sqlite3'
import { drizzle as drizzleSync } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { drizzle, type AsyncRemoteCallback } from 'drizzle-orm/sqlite-proxy'

import type { Db, Executor, Tables } from './client.js'
import * as schema from './schema.js'

/** The migrations folder, found from this module in both src/ and dist/. */
const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** Distinct statements kept prepared; queries with variable-length lists make new ones. */
const STATEMENT_CACHE_SIZE = 256

export interface SqliteDb extends Db {
  /** The connection itself, for the WAL checkpointer (checkpointer.ts). */
  readonly connection: Database.Database
}

export function openSqlite(dataDir: string): SqliteDb {
  mkdirSync(dataDir, { recursive: true })
  const sqlite = new Database(join(dataDir, 'fileshare.db'))
  sqlite.pragma('journal_mode = WAL')
  // In WAL mode NORMAL loses nothing when the process crashes, and never corrupts the file; a power
  // loss rolls back the commits since the last checkpoint (db/checkpointer.ts), which FULL would
  // avoid by an fsync per commit on this thread (docs/configuration.md, Durability).
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('foreign_keys = ON')
  migrate(drizzleSync(sqlite), { migrationsFolder: MIGRATIONS })
  return sqliteDb(sqlite)
}

/** The services' view of an open, migrated connection. */
export function sqliteDb(sqlite: Database.Database): SqliteDb {
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
  sqlite: Database.Database,
): (text: string, params: unknown[], method: Method) => { rows: unknown[] } {
  const cache = new Map<string, Database.Statement>()
  const prepare = (text: string): Database.Statement => {
    let statement = cache.get(text)
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear()
      statement = sqlite.prepare(text)
      if (statement.reader) statement.raw(true)
      cache.set(text, statement)
    }
    return statement
  }
  return (text, params, method) => {
    const statement = prepare(text)
    if (!statement.reader) {
      statement.run(...params)
      return { rows: [] }
    }
    if (method === 'get') return { rows: statement.get(...params) as unknown[] }
    return { rows: statement.all(...params) as unknown[] }
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
