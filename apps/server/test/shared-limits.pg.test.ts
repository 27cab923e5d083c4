/**
 * Two server instances on one PostgreSQL database, as behind a load balancer, enforce each limit
 * once between them (spec: Limits): the rate limit, the password lockout, the upload quota and
 * the daily request limit hold exactly when one client's requests race over both instances.
 * TRUST_PROXY with X-Forwarded-For names the client, as a proxy in front of both would.
 */
import { randomBytes } from 'node:crypto'

import { PASSWORD_ALGO, toBase64Url } from '@fileshare/protocol'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'

import { DailyIpHash } from '../src/limits/quota.js'
import { RateLimiter } from '../src/limits/rate-limiter.js'
import { SharedRateLimiter } from '../src/limits/shared-rate-limiter.js'
import { openTestDatabase, testPostgres } from './dialects.js'
import { burstOfGuesses, guardedRoutes } from './guarded-routes.js'
import {
  noteBody,
  randomToken,
  startTestServer,
  uploadHeaders,
  type TestServer,
} from './harness.js'
import { createRequest, ENV as REQUEST_ENV, init, requestBody } from './requests.suite.js'

const servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** Two instances sharing one database (a new one unless named) and DATA_DIR, with `env` on both. */
async function twoInstances(
  env: Record<string, string>,
  databaseUrl?: string,
): Promise<[TestServer, TestServer]> {
  const database = databaseUrl ?? (await (await testPostgres()).createDatabase())
  const shared = { DATABASE_URL: database, TRUST_PROXY: '1' }
  const first = await startTestServer({ env: { ...shared, ...env } })
  servers.push(first)
  // One DATA_DIR as well, so that either instance serves the other's blobs.
  servers.push(await startTestServer({ env: { ...shared, ...env, DATA_DIR: first.dataDir } }))
  return [servers[0]!, servers[1]!]
}

/**
 * Runs `burst` while the lockout table is held, until `count` statements wait for it, then lets
 * them go at once: the requests reach the lockout together, as they do when the database is slow.
 */
async function gatheredAtLockout<T>(
  databaseUrl: string,
  count: number,
  burst: () => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('begin')
    await client.query('lock table lockouts in access exclusive mode')
    const answers = burst()
    const giveUpAt = Date.now() + 30_000
    for (;;) {
      const { rows } = await client.query<{ waiting: number }>(
        `select count(*)::int as waiting from pg_locks
         where relation = 'lockouts'::regclass and not granted`,
      )
      if (rows[0]!.waiting >= count) break
      if (Date.now() > giveUpAt) throw new Error(`${rows[0]!.waiting} of ${count} gathered`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await client.query('commit')
    return await answers
  } finally {
    await client.end()
  }
}

/** `count` requests made at once, alternating between the instances. */
function spread(
  instances: TestServer[],
  count: number,
  request: (url: string) => Promise<Response>,
): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => request(instances[i % instances.length]!.url)),
  )
}

const statusCounts = (answers: Response[]) =>
  answers.reduce<Record<number, number>>((counts, res) => {
    counts[res.status] = (counts[res.status] ?? 0) + 1
    return counts
  }, {})

describe('limits shared by two instances on one database', () => {
  // Security: a client cannot multiply the rate limit by the number of instances.
  it('lets exactly RATE_LIMIT_MAX of 20 concurrent requests through, on either instance', async () => {
    const instances = await twoInstances({ RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW: '60000' })
    const client = { 'X-Forwarded-For': '203.0.113.50' }
    const answers = await spread(instances, 20, (url) =>
      fetch(`${url}/api/health`, { headers: client }),
    )
    expect(statusCounts(answers)).toEqual({ 200: 10, 429: 10 })
    // Each allowed request saw a count of its own: the remaining figures are 9 down to 0.
    const remaining = answers
      .filter((res) => res.status === 200)
      .map((res) => Number(res.headers.get('x-ratelimit-remaining')))
    expect(remaining.sort((a, b) => b - a)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    for (const refused of answers.filter((res) => res.status === 429)) {
      expect(refused.headers.get('x-ratelimit-limit')).toBe('10')
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await refused.json()).toEqual({ error: 'Too many requests' })
    }
    // Another client has a window of its own.
    const other = await fetch(`${instances[1].url}/api/health`, {
      headers: { 'X-Forwarded-For': '203.0.113.51' },
    })
    expect(other.status).toBe(200)
  })

  // Security: concurrent wrong guesses over both instances get no more than
  // PASSWORD_MAX_ATTEMPTS answers, and the lock holds on both.
  it('locks a password note after PASSWORD_MAX_ATTEMPTS guesses spread over both', async () => {
    const instances = await twoInstances({ PASSWORD_MAX_ATTEMPTS: '5', RATE_LIMIT_MAX: '0' })
    const body = noteBody({
      hasPassword: true,
      passwordSalt: toBase64Url(randomBytes(16)),
      passwordAlgo: PASSWORD_ALGO,
      maxViews: 100,
    })
    const created = await fetch(`${instances[0].url}/api/note`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const guess = (url: string, token: string) =>
      fetch(`${url}/api/note/${id}/password`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.77' },
        body: JSON.stringify({ authToken: token }),
      })
    const answers = await spread(instances, 20, (url) => guess(url, randomToken()))
    expect(statusCounts(answers)).toEqual({ 401: 5, 429: 15 })
    for (const instance of instances) {
      const right = await guess(instance.url, body.authToken as string)
      expect(right.status).toBe(429)
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0)
    }
  })

  // Security: a burst spread over both instances tests no more tokens than guesses in turn would:
  // the right token is answered only when admitted among the first PASSWORD_MAX_ATTEMPTS.
  describe.each(Object.entries(guardedRoutes(servers)))('%s', (_name, guarded) => {
    it('answers at most PASSWORD_MAX_ATTEMPTS of 50 concurrent guesses, one of them right', async () => {
      const databaseUrl = await (await testPostgres()).createDatabase()
      const env = { ...REQUEST_ENV, PASSWORD_MAX_ATTEMPTS: '5', RATE_LIMIT_MAX: '0' }
      // Room for every guess to wait at the lockout with a connection of its own.
      await twoInstances({ ...env, DATABASE_POOL_SIZE: '30' }, databaseUrl)
      const route = await guarded()
      const statuses = await gatheredAtLockout(databaseUrl, 50, () =>
        burstOfGuesses(route, 50, '198.51.100.78'),
      )
      const answered = statuses.filter((status) => status !== 429)
      expect(answered.length, JSON.stringify(statuses)).toBeLessThanOrEqual(5)
      for (const status of answered) expect([route.refused, 200]).toContain(status)
    }, 60_000)
  })

  // Security: uploads racing over both instances never hold more than the client's quota.
  it('never lets concurrent uploads on both instances exceed the upload quota', async () => {
    const instances = await twoInstances({ FILE_UPLOAD_QUOTA_BYTES: '1000', RATE_LIMIT_MAX: '0' })
    const client = { 'X-Forwarded-For': '192.0.2.33' }
    const answers = await spread(instances, 10, (url) =>
      fetch(`${url}/api/upload`, {
        method: 'POST',
        headers: { ...uploadHeaders(300, {}, 'Content-Length'), ...client },
        body: randomBytes(300),
      }),
    )
    expect(statusCounts(answers)).toEqual({ 200: 3, 413: 7 })
    for (const instance of instances) {
      const quota = await fetch(`${instance.url}/api/quota`, { headers: client })
      expect(await quota.json()).toMatchObject({ usedBytes: 900, remainingBytes: 100 })
    }
  })

  it('counts the daily request limit once for both instances', async () => {
    const instances = await twoInstances({
      ...REQUEST_ENV,
      FILE_REQUEST_DAILY_LIMIT: '3',
      RATE_LIMIT_MAX: '0',
    })
    const answers = await spread(instances, 10, (url) =>
      fetch(`${url}/api/request`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '192.0.2.44' },
        body: JSON.stringify(requestBody()),
      }),
    )
    expect(statusCounts(answers)).toEqual({ 201: 3, 429: 7 })
  })
})

/** The advisory lock the session row's insert waits for, while the test holds it. */
const INSERT_GATE = 4242

describe('request slots when an instance starts', () => {
  // Security: a request never takes more than maxUploads uploads, however instances come and go.
  it('leaves alone a slot another instance is reserving with its session row', async () => {
    const url = await (await testPostgres()).createDatabase()
    const env = { ...REQUEST_ENV, DATABASE_URL: url, RATE_LIMIT_MAX: '0' }
    const first = await startTestServer({ env })
    servers.push(first)
    const req = await createRequest(first, { maxUploads: 1 })
    // Holds the first instance in the transaction that reserves the slot and writes its session's
    // row: the row's insert waits for an advisory lock the test holds, while the second instance
    // starts (and writes the session table, which a lock on the whole table would keep it from).
    const blocker = new pg.Client({ connectionString: url })
    await blocker.connect()
    try {
      await blocker.query(
        `CREATE FUNCTION wait_for_test() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN PERFORM pg_advisory_xact_lock(${INSERT_GATE}); RETURN NEW; END $$`,
      )
      await blocker.query(
        `CREATE TRIGGER wait_for_test BEFORE INSERT ON upload_sessions
          FOR EACH ROW EXECUTE FUNCTION wait_for_test()`,
      )
      await blocker.query('SELECT pg_advisory_lock($1)', [INSERT_GATE])
      const pending = init(first, req, 1000)
      for (;;) {
        const { rows } = await blocker.query<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM pg_locks WHERE NOT granted AND locktype = 'advisory'
            AND objid = $1`,
          [INSERT_GATE],
        )
        if (Number(rows[0]!.waiting) > 0) break
        await new Promise((resolve) => setImmediate(resolve))
      }
      servers.push(await startTestServer({ env }))
      await blocker.query('SELECT pg_advisory_unlock($1)', [INSERT_GATE])
      expect((await pending).status).toBe(201)
    } finally {
      await blocker.end()
    }
    const second = servers[1]!
    expect((await init(second, req, 1000)).status).toBe(409)
    expect((await init(first, req, 1000)).status).toBe(409)
  })
})

describe('the rate limit window in PostgreSQL', () => {
  it('answers as the in-memory window does, request by request', async () => {
    const db = await openTestDatabase('/nonexistent')
    try {
      const clock = { now: Date.UTC(2024, 2, 10, 12) }
      const options = { windowMs: 60_000, max: 5, now: () => clock.now }
      const memory = new RateLimiter(options)
      const shared = new SharedRateLimiter({ ...options, db, ipHash: await DailyIpHash.load(db) })
      // Bursts and pauses of every length, from a seed so that a failure can be run again.
      let state = 7
      const random = () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32
      for (let i = 0; i < 300; i++) {
        const ip = random() < 0.8 ? '203.0.113.1' : '203.0.113.2'
        expect(await shared.hit(ip), `request ${i}`).toEqual(memory.hit(ip))
        clock.now += random() < 0.7 ? Math.floor(random() * 3_000) : Math.floor(random() * 70_000)
      }
      // Windows whose newest slot has left the window are removed; the others stay.
      clock.now += 60_000
      await shared.hit('203.0.113.3')
      expect(await shared.prune()).toBe(2)
      expect(await shared.prune()).toBe(0)
    } finally {
      await db.close()
    }
  })
})
