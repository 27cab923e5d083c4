/**
 * `pnpm bench:limits`: what the limits cost a request on each dialect. The rate limit runs on
 * every /api request: the built server answers GET /api/config under wrk (bench/limits.lua, many
 * clients by X-Forwarded-For) with the limit off and on, on SQLite (the in-memory window) and on
 * PostgreSQL (one upsert per request, shared by every instance). The lockout and the quota run
 * per password failure and per upload: their statements are timed in this process on each
 * dialect. Prints a table; the last line is one JSON object of every figure.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { stopChild } from '@fileshare/testing'
import { startPostgres } from '@fileshare/testing/postgres'

import { type Db } from '../src/db/client.js'
import { openDatabase } from '../src/db/open-database.js'
import { DbLockout, MemoryLockout, type Lockout } from '../src/limits/lockout.js'
import { DailyIpHash, DbUploadQuota } from '../src/limits/quota.js'
import { round, startBuiltServer, wrkLoad, type WrkLoad } from './lib.js'
import { wrkMissing } from './require-wrk.js'

const SECONDS = Number(process.env.BENCH_LIMITS_SECONDS ?? 8)
const CONNECTIONS = 32
const CLIENTS = 1000
const OPERATIONS = 2000
const IN_FLIGHT = 8

/** wrk against `port` for SECONDS after a short warm-up. */
function load(port: number, seconds = SECONDS): Promise<WrkLoad> {
  return wrkLoad(port, seconds, CONNECTIONS, { LIMITS_CLIENTS: String(CLIENTS) })
}

async function serverLoad(env: Record<string, string>, rateLimited: boolean): Promise<WrkLoad> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-bench-limits-'))
  const server = await startBuiltServer(dataDir, {
    ...env,
    TRUST_PROXY: '1',
    RATE_LIMIT_MAX: rateLimited ? '1000000000' : '0',
    RATE_LIMIT_WINDOW: '60000',
  })
  try {
    await load(server.port, 2)
    return await load(server.port)
  } finally {
    await stopChild(server.child)
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** Mean microseconds per call of `operation`, IN_FLIGHT at a time. */
async function timed(operation: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < OPERATIONS) await operation(next++)
    }),
  )
  return round(Number(process.hrtime.bigint() - started) / 1000 / OPERATIONS, 1)
}

/** Per-call cost of a quota reservation with its settlement and of a lockout admission + check. */
async function limitCalls(db: Db, lockout: Lockout) {
  const ipHash = await DailyIpHash.load(db)
  const quota = new DbUploadQuota({ db, ipHash, quotaBytes: 1e12, windowSec: 86400, now: Date.now })
  const ip = (i: number) => `10.1.${(i >> 8) & 255}.${i & 255}`
  return {
    quotaReserveSettleUs: await timed(async (i) =>
      quota.endHold(db.query, (await quota.reserve(ip(i), 100))!, true),
    ),
    lockoutFailCheckUs: await timed(async (i) => {
      await lockout.admit(`note:${i % 50}`, ip(i))
      await lockout.assertOpen(`note:${i % 50}`, ip(i + 1))
    }),
  }
}

const wrkProblem = await wrkMissing()
if (wrkProblem !== null) {
  console.error(wrkProblem)
  process.exit(1)
}

const postgres = await startPostgres()
const workDir = await mkdtemp(join(tmpdir(), 'fileshare-bench-limits-db-'))
try {
  const sqliteEnv = {}
  const postgresEnv = { DATABASE_URL: await postgres.createDatabase() }
  const rateLimit = {
    sqlite: {
      off: await serverLoad(sqliteEnv, false),
      on: await serverLoad(sqliteEnv, true),
    },
    postgres: {
      off: await serverLoad(postgresEnv, false),
      on: await serverLoad(postgresEnv, true),
    },
  }
  const lockoutOptions = { maxAttempts: 1e9, lockoutMs: 60_000, now: Date.now }
  const sqliteDb = await openDatabase({ dataDir: workDir, databaseUrl: null, databasePoolSize: 1 })
  const pgDb = await openDatabase({
    dataDir: workDir,
    databaseUrl: await postgres.createDatabase(),
    databasePoolSize: 10,
  })
  const calls = {
    sqlite: await limitCalls(sqliteDb, new MemoryLockout(lockoutOptions)),
    sqliteDbLockout: await limitCalls(
      sqliteDb,
      new DbLockout({ ...lockoutOptions, db: sqliteDb, ipHash: await DailyIpHash.load(sqliteDb) }),
    ),
    postgres: await limitCalls(
      pgDb,
      new DbLockout({ ...lockoutOptions, db: pgDb, ipHash: await DailyIpHash.load(pgDb) }),
    ),
  }
  await sqliteDb.close()
  await pgDb.close()

  console.log('GET /api/config, rate limit off and on (requests/s, p99 ms)')
  for (const [dialect, runs] of Object.entries(rateLimit)) {
    console.log(
      `  ${dialect.padEnd(9)} off ${runs.off.requestsPerSec}/s ${runs.off.p99Ms} ms` +
        `   on ${runs.on.requestsPerSec}/s ${runs.on.p99Ms} ms`,
    )
  }
  console.log('Per call, 8 in flight (µs): quota reserve+settle, lockout fail+check')
  for (const [what, figures] of Object.entries(calls)) {
    console.log(
      `  ${what.padEnd(16)} ${figures.quotaReserveSettleUs}  ${figures.lockoutFailCheckUs}`,
    )
  }
  console.log(JSON.stringify({ rateLimit, calls }))
} finally {
  await postgres.stop()
  await rm(workDir, { recursive: true, force: true })
}
