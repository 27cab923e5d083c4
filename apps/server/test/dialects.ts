/**
 * The database the integration suites run on: SQLite under DATA_DIR, or PostgreSQL when the
 * vitest project sets TEST_DATABASE=postgres (vitest.config.ts). On PostgreSQL the run's one
 * cluster (test/postgres-cluster.ts) serves every file, and every server gets a database of its
 * own, copied from the migrated template, so they share nothing; a file drops its databases when
 * it ends.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { sharedDatabases, type PostgresDatabases } from '@fileshare/testing/postgres'
import { inject } from 'vitest'

import { type Db } from '../src/db/client.js'
import { openDatabase } from '../src/db/open-database.js'
import type { PostgresDb } from '../src/db/postgres.js'
import type { SqliteDb } from '../src/db/sqlite.js'

const run = promisify(execFile)

export type TestDialect = 'sqlite' | 'postgres'

export const TEST_DIALECT: TestDialect =
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite'

let databases: PostgresDatabases | undefined

/** New databases for this file in the run's cluster. */
export interface TestDatabases {
  /** A database with every migration applied, or with nothing in it when `empty`. */
  createDatabase(options?: { empty?: boolean }): Promise<string>
}

/** This file's databases in the run's PostgreSQL cluster. */
export async function testPostgres(): Promise<TestDatabases> {
  const { template, ...address } = inject('postgres')
  databases ??= sharedDatabases(address)
  const made = databases
  return { createDatabase: (options) => made.createDatabase(options?.empty ? undefined : template) }
}

/** Settings that give a new server a database of its own. */
export async function newDatabaseEnv(): Promise<Record<string, string>> {
  if (TEST_DIALECT === 'sqlite') return {}
  return { DATABASE_URL: await (await testPostgres()).createDatabase() }
}

/** Drops the databases this file made, ending what still holds them. */
export async function dropTestDatabases(): Promise<void> {
  const made = databases
  databases = undefined
  await made?.drop()
}

/** Opens the test dialect's database for a test that builds services without a server. */
export async function openTestDatabase(dataDir: string): Promise<Db> {
  const { DATABASE_URL } = await newDatabaseEnv()
  return openDatabase({ dataDir, databaseUrl: DATABASE_URL ?? null, databasePoolSize: 4 })
}

/**
 * Runs raw SQL on a server's database, for tests that set up a state no route makes; `?` marks
 * the parameters in both dialects.
 */
export async function querySql<T = Record<string, unknown>>(
  db: Db,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  if (db.dialect === 'sqlite') {
    const statement = (db as SqliteDb).connection.prepare(text)
    if (!statement.reader) {
      statement.run(params)
      return []
    }
    const columns = statement.columns()
    return statement
      .all(params)
      .map((row) => Object.fromEntries(columns.map((name, i) => [name, row[i]])) as T)
  }
  let index = 0
  const numbered = text.replace(/\?/g, () => `$${++index}`)
  const { rows } = await (db as PostgresDb).pool.query(numbered, params)
  return rows as T[]
}

/** Everything the database holds, as bytes, for tests that look for what must not be stored. */
export async function databaseBytes(db: Db, dataDir: string): Promise<Buffer> {
  if (db.dialect === 'sqlite') {
    ;(db as SqliteDb).connection.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    return readFile(join(dataDir, 'fileshare.db'))
  }
  const url = (db as PostgresDb).pool.options.connectionString!
  const { stdout } = await run('/usr/lib/postgresql/15/bin/pg_dump', ['--data-only', url], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 ** 2,
  })
  return stdout
}
