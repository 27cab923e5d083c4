/**
 * Which driver the SQLite database runs on: node:sqlite where Node has it (22.16 and newer), else
 * better-sqlite3, an optional dependency compiled for one Node, so imported only when chosen;
 * SQLITE_DRIVER names one outright. A driver that cannot be had stops the start with one line
 * saying why and what to do. Holds the better-sqlite3 adapter (sqlite-connection.ts).
 * May touch: process state (the Node version); the file system (the SQLite file it is asked to
 * open); loads the chosen adapter.
 */
import type BetterSqlite3 from 'better-sqlite3'

import { StartupFailure } from '../startup-failure.js'
import type {
  SqliteConnection,
  SqliteDriverName,
  SqliteDriverSetting,
  SqliteStatement,
} from './sqlite-connection.js'
import { nodeSqlite, openNodeSqlite } from './sqlite-node.js'

/** The driver `setting` selects on a Node that has a usable node:sqlite or not. */
export function chooseSqliteDriver(
  setting: SqliteDriverSetting,
  hasNodeSqlite: boolean,
): SqliteDriverName {
  if (setting === 'node') return 'node:sqlite'
  if (setting === 'better-sqlite3') return 'better-sqlite3'
  return hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3'
}

export async function openSqliteConnection(
  file: string,
  setting: SqliteDriverSetting,
): Promise<SqliteConnection> {
  const sqlite = nodeSqlite()
  if (chooseSqliteDriver(setting, sqlite !== undefined) === 'node:sqlite') {
    if (sqlite === undefined) {
      throw new StartupFailure(
        `SQLITE_DRIVER=node needs node:sqlite, which Node ${process.version} lacks (Node 22.16 ` +
          'and newer have it): set SQLITE_DRIVER=auto or better-sqlite3',
      )
    }
    return openNodeSqlite(sqlite, file)
  }
  const Database = await import('better-sqlite3')
    .then(({ default: loaded }) => {
      // Loading the module does not load the compiled part; opening a database does.
      new loaded(':memory:').close()
      return loaded
    })
    .catch((error: unknown) => {
      throw new StartupFailure(betterSqlite3Missing(setting, error), { cause: error })
    })
  return openBetterSqlite3(new Database(file), file)
}

/** The line for better-sqlite3 failing to load: not installed, or built for another Node. */
function betterSqlite3Missing(setting: SqliteDriverSetting, error: unknown): string {
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message.replace(/\s+/g, ' ').trim() : String(error)
  const why = `better-sqlite3 cannot be loaded on Node ${process.version}: ${message}${
    typeof code === 'string' ? ` (${code})` : ''
  }`
  if (setting === 'better-sqlite3') {
    return (
      `SQLITE_DRIVER=better-sqlite3, but ${why}; install it for this Node (pnpm install, or ` +
      'pnpm rebuild better-sqlite3) or set SQLITE_DRIVER=auto'
    )
  }
  return (
    `no SQLite driver: Node ${process.version} has no node:sqlite (Node 22.16 and newer have ` +
    `it), and ${why}; run Node 22.16 or newer, or install better-sqlite3 for this Node`
  )
}

function openBetterSqlite3(db: BetterSqlite3.Database, file: string): SqliteConnection {
  return {
    driver: 'better-sqlite3',
    file,
    get inTransaction() {
      return db.inTransaction
    },
    prepare: (text) => betterStatement(db.prepare(text)),
    exec: (text) => {
      db.exec(text)
    },
    close: () => {
      db.close()
    },
  }
}

function betterStatement(prepared: BetterSqlite3.Statement): SqliteStatement {
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
