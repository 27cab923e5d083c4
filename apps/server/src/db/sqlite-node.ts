/**
 * The node:sqlite adapter (sqlite-connection.ts), for the Node versions that have the module with
 * rows as arrays: 22.16 and newer, where it also needs no flag. Node's own typings of the module
 * are not in the @types/node the project builds against, so the little it uses is declared here.
 * May touch: the file system (the SQLite file it is asked to open, through node:sqlite).
 */
import type { SqliteConnection, SqliteStatement } from './sqlite-connection.js'

interface StatementSync {
  columns(): { name: string }[]
  setReturnArrays(enabled: boolean): void
  run(...params: unknown[]): unknown
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}

interface DatabaseSync {
  readonly isTransaction: boolean
  prepare(text: string): StatementSync
  exec(text: string): void
  close(): void
}

interface NodeSqlite {
  DatabaseSync: new (file: string) => DatabaseSync
  StatementSync: { prototype: Partial<StatementSync> }
}

/** SQLite's primary result codes by number, for the names better-sqlite3 gives its errors. */
const PRIMARY_CODES: Record<number, string> = {
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
}

/** node:sqlite as this adapter needs it; undefined on a Node without it, or with an older one. */
export function nodeSqlite(): NodeSqlite | undefined {
  const found = process.getBuiltinModule('node:sqlite') as NodeSqlite | undefined
  return typeof found?.StatementSync.prototype.setReturnArrays === 'function' ? found : undefined
}

export function openNodeSqlite(sqlite: NodeSqlite, file: string): SqliteConnection {
  const db = translated(() => new sqlite.DatabaseSync(file))
  return {
    driver: 'node:sqlite',
    file,
    get inTransaction() {
      return db.isTransaction
    },
    prepare: (text) => statement(translated(() => db.prepare(text))),
    exec: (text) => translated(() => db.exec(text)),
    close: () => db.close(),
  }
}

function statement(prepared: StatementSync): SqliteStatement {
  const reader = prepared.columns().length > 0
  if (reader) prepared.setReturnArrays(true)
  return {
    reader,
    columns: () => prepared.columns().map((column) => column.name),
    run: (params) => translated(() => prepared.run(...params)),
    get: (params) => {
      const row = translated(() => prepared.get(...params)) as unknown[] | undefined
      return row && withBuffers(row)
    },
    all: (params) => (translated(() => prepared.all(...params)) as unknown[][]).map(withBuffers),
  }
}

/** Blobs as Buffers over the same memory, as better-sqlite3 returns them. */
function withBuffers(row: unknown[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const cell = row[i]
    if (cell instanceof Uint8Array && !Buffer.isBuffer(cell)) {
      row[i] = Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength)
    }
  }
  return row
}

/** Gives a failure better-sqlite3's `code` (SQLITE_CANTOPEN...), which start-up failures read. */
function translated<T>(call: () => T): T {
  try {
    return call()
  } catch (error) {
    const errcode = (error as { errcode?: unknown }).errcode
    if (typeof errcode === 'number') {
      const code = PRIMARY_CODES[errcode & 0xff]
      if (code !== undefined) Object.assign(error as object, { code })
    }
    throw error
  }
}
