/**
 * The database the integration suites run on: SQLite under DATA_DIR, or PostgreSQL when the
 * vitest project sets TEST_DATABASE=postgres (vitest.config.ts). On PostgreSQL one throwaway
 * cluster serves the whole test file, started when its first server starts, and every server gets
 * a database of its own, so they share nothing.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { postgresMissing, startPostgres, type Postgres } from '@fileshare/testing/postgres'

import { openDatabase, type Db } from '../src/db/client.js'
import type { PostgresDb } from '../src/db/postgres.js'
import type { SqliteDb } from '../src/db/sqlite.js'

const run = promisify(execFile)

export type TestDialect = 'sqlite' | 'postgres'

export const TEST_DIALECT: TestDialect =
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite'

let cluster: Promise<Postgres> | undefined

/** This file's PostgreSQL cluster, started on first use. */
export function testPostgres(): Promise<Postgres> {
  cluster ??= (async () => {
    // Under CI=true a missing server is installed here; the project is only run with it.
    const missing = await postgresMissing()
    if (missing) throw new Error(missing)
    return startPostgres()
  })()
  return cluster
}

/** Settings that give a new server a database of its own. */
export async function newDatabaseEnv(): Promise<Record<string, string>> {
  if (TEST_DIALECT === 'sqlite') return {}
  return { DATABASE_URL: await (await testPostgres()).createDatabase() }
}

/** Stops this file's cluster, if one was started. */
export async function stopTestPostgres(): Promise<void> {
  const started = cluster
  cluster = undefined
  if (started) await (await started).stop()
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
