/**
 * PostgreSQL at DATABASE_URL through a node-postgres pool. Migrations (apps/server/drizzle-pg)
 * run at start under an advisory lock, so instances started together apply them once, one after
 * the other. A pool survives the server going away: queries fail meanwhile (answered 503,
 * unavailable.ts) and new connections are made once it is back.
 * May touch: the network (a pool to DATABASE_URL); every table, by migration; the file system
 * (reading apps/server/drizzle-pg).
 */
import { fileURLToPath } from 'node:url'

import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'

import type { Db, Executor } from './client.js'
import * as schema from './schema-pg.js'

const MIGRATIONS = fileURLToPath(new URL('../../drizzle-pg', import.meta.url))

/** The advisory lock key the migrations are applied under (any constant shared by instances). */
export const MIGRATION_LOCK_KEY = 0x66696c65

/** How long a query waits for a connection before it fails. */
const CONNECT_TIMEOUT_MS = 5_000

/** `bigint` columns and counts come back as numbers; times and sizes stay below 2^53. */
const typeParser = ((oid: number, format?: 'text') =>
  oid === pg.types.builtins.INT8
    ? Number
    : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser

export interface PostgresDb extends Db {
  readonly pool: pg.Pool
}

export async function openPostgres(url: string, poolSize: number): Promise<PostgresDb> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types: { getTypeParser: typeParser },
  })
  // An idle connection the server dropped is only taken out of the pool; the next query makes a
  // new one. A checked-out one (a transaction's) fails its queries, and its own listener keeps
  // the end from surfacing as an unhandled 'error' event, which would end the process.
  pool.on('error', () => undefined)
  pool.on('connect', (client) => client.on('error', () => undefined))
  try {
    await migrateUnderLock(pool)
  } catch (error) {
    await pool.end()
    throw error
  }
  const query = drizzle(pool)
  let closing: Promise<void> | undefined
  return {
    dialect: 'postgres',
    driver: 'pg',
    tables: schema,
    query,
    pool,
    transaction: (body) => transactionOn(pool, body),
    prepare: (build) => ({ run: (on, values) => build(on).execute(values) }),
    close: () => (closing ??= pool.end()),
  }
}

/**
 * `body` in a transaction on a client of its own, which goes back to the pool whatever fails,
 * `begin` included: drizzle's pool transaction sends `begin` before its own try, so a connection
 * lost at that moment (a restart) kept its client checked out for good, shrinking the pool until
 * a stop waited forever for it.
 */
async function transactionOn<T>(pool: pg.Pool, body: (tx: Executor) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    return await drizzle(client).transaction(body)
  } finally {
    client.release()
  }
}

async function migrateUnderLock(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS })
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
    }
  } finally {
    client.release()
  }
}
