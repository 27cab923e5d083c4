/**
 * The better-sqlite3 adapter (sqlite-connection.ts), for the Node versions without a usable
 * node:sqlite. better-sqlite3 is an optional dependency compiled for one Node, so it is imported
 * only here and only when chosen.
 * May touch: the file system (the SQLite file it is asked to open).
 */
import type BetterSqlite3 from 'better-sqlite3'

import type { SqliteConnection, SqliteStatement } from './sqlite-connection.js'

type DatabaseConstructor = typeof BetterSqlite3

/** Loads the module; throws what loading it threw (not installed, or built for another Node). */
export async function loadBetterSqlite3(): Promise<DatabaseConstructor> {
  const module = await import('better-sqlite3')
  // Loading the module does not load the compiled part; opening a database does.
  new module.default(':memory:').close()
  return module.default
}

export function openBetterSqlite3(Database: DatabaseConstructor, file: string): SqliteConnection {
  const db = new Database(file)
  return {
    driver: 'better-sqlite3',
    file,
    get inTransaction() {
      return db.inTransaction
    },
    prepare: (text) => statement(db.prepare(text)),
    exec: (text) => {
      db.exec(text)
    },
    close: () => {
      db.close()
    },
  }
}

function statement(prepared: BetterSqlite3.Statement): SqliteStatement {
  const reader = prepared.reader
  if (reader) prepared.raw(true)
  return {
    reader,
    columns: () => (reader ? prepared.columns().map((column) => column.name) : []),
    run: (params) => {
      prepared.run(...params)
    },
    get: (params) => prepared.get(...params) as unknown[] | undefined,
    all: (params) => prepared.all(...params) as unknown[][],
  }
}
