/**
 * What only PostgreSQL has: several instances migrating one empty database at once, and the
 * server going away and coming back while the service runs.
 */
import { readFileSync } from 'node:fs'

import { startPostgres, type Postgres } from '@fileshare/testing/postgres'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { openDatabase } from '../src/db/open-database.js'
import type { PostgresDb } from '../src/db/postgres.js'
import { isDatabaseUnavailable } from '../src/db/unavailable.js'
import { DATABASE_UNAVAILABLE_MESSAGE } from '../src/app.js'
import { DailyIpHash, DbUploadQuota } from '../src/limits/quota.js'
import { querySql, testPostgres } from './dialects.js'
import { noteBody, startTestServer, type TestServer } from './harness.js'

/** The migrations drizzle-kit generated for PostgreSQL. */
const MIGRATIONS = (
  JSON.parse(
    readFileSync(new URL('../drizzle-pg/meta/_journal.json', import.meta.url), 'utf8'),
  ) as { entries: unknown[] }
).entries.length

describe('migrations', () => {
  it('instances starting together on an empty database apply them once, without a race', async () => {
    // Property: concurrent starts serialise on pg_advisory_lock; none fails and none applies twice.
    const url = await (await testPostgres()).createDatabase({ empty: true })
    const open = () =>
      openDatabase({ dataDir: '/nonexistent', databaseUrl: url, databasePoolSize: 2 })
    const opened = await Promise.allSettled(Array.from({ length: 6 }, open))
    const dbs = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
    try {
      expect(opened.filter((result) => result.status === 'rejected')).toEqual([])
      const applied = await querySql(dbs[0]!, 'SELECT hash FROM drizzle.__drizzle_migrations')
      expect(applied).toHaveLength(MIGRATIONS)
    } finally {
      await Promise.all(dbs.map((db) => db.close()))
    }
  })
})

describe('the upload quota on a pool of connections', () => {
  it('a reservation racing a settlement never overshoots the quota', async () => {
    // Property: recorded plus held bytes are read and changed one step at a time per client.
    const url = await (await testPostgres()).createDatabase()
    const db = await openDatabase({
      dataDir: '/nonexistent',
      databaseUrl: url,
      databasePoolSize: 4,
    })
    try {
      const quota = new DbUploadQuota({
        db,
        ipHash: await DailyIpHash.load(db),
        quotaBytes: 1000,
        windowSec: 3600,
        now: Date.now,
      })
      // The rounds run side by side, each on a client of its own, so the pool interleaves their
      // statements in many orders at once, and the run's length follows the pool, not the rounds.
      const round = async (i: number) => {
        const ip = `198.51.100.${i}`
        const first = await quota.reserve(ip, 600)
        const [, second] = await Promise.allSettled([
          quota.endHold(db.query, first!, true),
          quota.reserve(ip, 600),
        ])
        return second.status === 'fulfilled' ? [`round ${i}`] : []
      }
      const overshot = await Promise.all(Array.from({ length: 200 }, (_, i) => round(i)))
      expect(overshot.flat()).toEqual([])
    } finally {
      await db.close()
    }
  })
})

describe('a connection the server ends mid-transaction', () => {
  it('fails that transaction and leaves the process running', async () => {
    // Property: a checked-out connection's end reaches its queries, never an unhandled 'error'
    // event (which ends the process); the pool then serves the next query on a new connection.
    const url = await (await testPostgres()).createDatabase()
    const db = await openDatabase({
      dataDir: '/nonexistent',
      databaseUrl: url,
      databasePoolSize: 2,
    })
    try {
      let pid: number | undefined
      const held = db.transaction(async (tx) => {
        const [row] = (await tx.execute(sql`SELECT pg_backend_pid() AS pid`)).rows as {
          pid: number
        }[]
        pid = row!.pid
        await tx.execute(sql`SELECT pg_sleep(30)`)
      })
      const settled = held.then(
        () => undefined,
        (error: unknown) => error,
      )
      await vi.waitFor(() => expect(pid).toBeDefined())
      await querySql(db, 'SELECT pg_terminate_backend($1)', [pid])
      // Answered as the database's outage (503), like any query on a connection that broke.
      const error = await settled
      expect(error).toBeInstanceOf(Error)
      expect(isDatabaseUnavailable(error)).toBe(true)
      expect(await querySql(db, 'SELECT 1 AS one')).toEqual([{ one: 1 }])
    } finally {
      await db.close()
    }
  })
})

describe('PostgreSQL going away while the server runs', () => {
  // A cluster of its own, since the run's cluster serves the other files meanwhile.
  let postgres: Postgres
  let server: TestServer
  beforeAll(async () => {
    postgres = await startPostgres()
    server = await startTestServer({ env: { DATABASE_URL: await postgres.createDatabase() } })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await postgres?.stop()
  })

  it('answers 503 with a JSON error while it is down and recovers without a restart', async () => {
    const created = await fetch(`${server.url}/api/note`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(noteBody()),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }

    await postgres.pause()
    try {
      const info = await fetch(`${server.url}/api/note/${id}`)
      expect(info.status).toBe(503)
      expect(info.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await info.json()).toEqual({ error: DATABASE_UNAVAILABLE_MESSAGE })
      expect((await fetch(`${server.url}/api/health`)).status).toBe(503)
    } finally {
      await postgres.start()
    }

    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    const info = await fetch(`${server.url}/api/note/${id}`)
    expect(info.status).toBe(200)
    expect(await info.json()).toMatchObject({ id, viewCount: 0 })
  })
})

describe('a transaction whose connection is lost at its begin', () => {
  it('gives its connection back, so the pool neither shrinks nor holds up a stop', async () => {
    const url = await (await testPostgres()).createDatabase()
    const db = (await openDatabase({
      dataDir: '/nonexistent',
      databaseUrl: url,
      databasePoolSize: 1,
    })) as PostgresDb
    // The pool's one connection fails the next `begin`, as one lost to a restart would.
    const client = await db.pool.connect()
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>
    let lose = true
    client.query = ((...args: unknown[]) => {
      const first = args[0] as string | { text?: string }
      const text = typeof first === 'string' ? first : (first.text ?? '')
      if (lose && /^begin/i.test(text)) {
        lose = false
        return Promise.reject(new Error('Connection terminated unexpectedly'))
      }
      return query(...args)
    }) as typeof client.query
    client.release()
    await expect(db.transaction((tx) => tx.execute(sql`select 1`))).rejects.toThrow(/begin/)
    expect(db.pool.totalCount - db.pool.idleCount).toBe(0)
    await db.transaction((tx) => tx.execute(sql`select 1`))
    await db.close()
  })
})
