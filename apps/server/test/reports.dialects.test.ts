/**
 * `POST /api/report/:id` on the real server: the body's limits, the report limits per network
 * (an IPv4 /24, an IPv6 /48; shared by the instances on PostgreSQL) per window and per day, and
 * an answer that says nothing of whether the id exists.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { MAX_OPEN_REPORTS } from '../src/ops/reports.js'
import { querySql } from './dialects.js'
import { manualClock, noteBody, startTestServer, type TestServer } from './harness.js'
import { call } from './requests.suite.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    env: { TRUST_PROXY: 'true', REPORT_RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '60000' },
  })
})
afterAll(() => server.close())

const key = () => randomBytes(34).toString('base64url')

/** An address in a /24 of its own: reporters are counted by network. */
let networks = 0
function nextNetwork(): string {
  networks++
  return `100.${64 + (networks >> 8)}.${networks & 255}.9`
}

function report(id: string, body: unknown, ip = nextNetwork(), to: TestServer = server) {
  return call(to, 'POST', `/report/${id}`, { body, ip })
}

async function reportsStored(): Promise<number> {
  return (await server.service.services.reports.list()).length
}

describe('POST /api/report/:id', () => {
  it('stores a report with its reason and the key only when one is given', async () => {
    const created = await call(server, 'POST', '/note', { body: noteBody() })
    const id = created.body.id as string
    const secret = key()
    expect(await report(id, { reason: '  Spam  ', key: secret })).toMatchObject({
      status: 201,
      body: { ok: true },
    })
    expect(await report(id, { reason: 'Scam' })).toMatchObject({ status: 201 })
    const [withoutKey, withKey] = await server.service.services.reports.list()
    expect(withKey).toMatchObject({ targetId: id, reason: 'Spam', key: secret, status: 'open' })
    expect(withoutKey).toMatchObject({ targetId: id, reason: 'Scam', key: null })
  })

  it('answers alike whether the id exists or not', async () => {
    // Security: a report tells no more of an id's existence than GET /api/exists/:id.
    const created = await call(server, 'POST', '/note', { body: noteBody() })
    const known = await report(created.body.id as string, { reason: 'x' })
    const unknown = await report(randomUUID(), { reason: 'x' })
    expect(unknown.status).toBe(known.status)
    expect(unknown.body).toEqual(known.body)
  })

  it('refuses malformed ids and bodies before storing anything', async () => {
    const id = randomUUID()
    const before = await reportsStored()
    const cases: [unknown, number, string][] = [
      [{}, 400, 'Reason must be 1 to 2000 characters'],
      [{ reason: '   ' }, 400, 'Reason must be 1 to 2000 characters'],
      [{ reason: 'é'.repeat(2001) }, 400, 'Reason must be 1 to 2000 characters'],
      [{ reason: 42 }, 400, 'Reason must be 1 to 2000 characters'],
      [{ reason: 'x', key: 'abc' }, 400, 'Key must be the link secret'],
      [{ reason: 'x', key: `${key()}=` }, 400, 'Key must be the link secret'],
      [
        { reason: 'x', key: randomBytes(50).toString('base64url') },
        400,
        'Key must be the link secret',
      ],
      [{ reason: 'x', extra: 1 }, 400, 'Invalid request'],
      [[], 400, 'Invalid request'],
    ]
    for (const [body, status, error] of cases) {
      const answer = await report(id, body)
      expect([answer.status, answer.body.error], JSON.stringify(body)).toEqual([status, error])
    }
    expect((await report('not-a-uuid', { reason: 'x' })).status).toBe(400)
    const form = await fetch(`${server.url}/api/report/${id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ reason: 'x' }),
    })
    expect(form.status).toBe(415)
    expect(await reportsStored()).toBe(before)
  })

  it('takes a reason of 2,000 characters of any width, and refuses a body past its limit', async () => {
    expect((await report(randomUUID(), { reason: '😀'.repeat(2000), key: key() })).status).toBe(201)
    const big = await report(randomUUID(), { reason: 'x', pad: 'y'.repeat(20_000) })
    expect(big.status).toBe(413)
  })

  it('limits reports per network and window, apart from the /api limit', async () => {
    const ip = nextNetwork()
    const id = randomUUID()
    expect((await report(id, { reason: 'one' }, ip)).status).toBe(201)
    expect((await report(id, { reason: 'two' }, ip)).status).toBe(201)
    const before = await reportsStored()
    const third = await report(id, { reason: 'three' }, ip)
    expect(third.status).toBe(429)
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await reportsStored()).toBe(before)
    // Another client is not held back, and the refused one may still use the rest of the API.
    expect((await report(id, { reason: 'other' })).status).toBe(201)
    expect((await call(server, 'GET', '/config', { ip })).status).toBe(200)
  })

  // Security: one network cannot take a fresh address for each report and fill the open reports.
  it('counts every address of an IPv4 /24 and of an IPv6 /48 as one reporter', async () => {
    const id = randomUUID()
    const ipv4 = nextNetwork().replace(/\.9$/, '')
    expect((await report(id, { reason: 'a' }, `${ipv4}.1`)).status).toBe(201)
    expect((await report(id, { reason: 'b' }, `${ipv4}.200`)).status).toBe(201)
    expect((await report(id, { reason: 'c' }, `${ipv4}.77`)).status).toBe(429)
    expect((await report(id, { reason: 'd' }, '2001:db8:4a:1::1')).status).toBe(201)
    expect((await report(id, { reason: 'e' }, '2001:db8:4a:ffff:9::2')).status).toBe(201)
    expect((await report(id, { reason: 'f' }, '2001:db8:4a:7::3')).status).toBe(429)
    expect((await report(id, { reason: 'g' }, '2001:db8:4b::1')).status).toBe(201)
  })
})

describe('the daily report limit', () => {
  // Security: a network may keep at most REPORT_DAILY_LIMIT reports a day open, then ages out.
  it('takes REPORT_DAILY_LIMIT reports per network and UTC day, and again the next day', async () => {
    const clock = manualClock(Date.UTC(2030, 0, 15, 12))
    const daily = await startTestServer({
      clock,
      env: { TRUST_PROXY: 'true', REPORT_RATE_LIMIT_MAX: '0', REPORT_DAILY_LIMIT: '3' },
    })
    try {
      const id = randomUUID()
      for (const host of [1, 2, 3]) {
        expect((await report(id, { reason: 'junk' }, `192.0.2.${host}`, daily)).status).toBe(201)
      }
      const refused = await report(id, { reason: 'junk' }, '192.0.2.4', daily)
      expect(refused.status).toBe(429)
      expect(refused.body).toEqual({ error: 'Too many requests' })
      expect(Number(refused.headers.get('retry-after'))).toBe(12 * 3600)
      expect(await daily.service.services.reports.list()).toHaveLength(3)
      // Another network is not held back.
      expect((await report(id, { reason: 'real' }, '198.51.100.1', daily)).status).toBe(201)
      clock.advance(12 * 3600 * 1000)
      expect((await report(id, { reason: 'junk' }, '192.0.2.5', daily)).status).toBe(201)
      // The counts of past days go with the cleanup job.
      expect((await daily.service.cleanup.runOnce()).quotaPruned).toBeGreaterThanOrEqual(2)
    } finally {
      await daily.close()
    }
  })
})

describe('the cap on open reports', () => {
  // Security: the table stays bounded however many reporters file at once.
  it('keeps at most MAX_OPEN_REPORTS open when reports arrive together', async () => {
    const capped = await startTestServer({
      env: { TRUST_PROXY: 'true', REPORT_RATE_LIMIT_MAX: '0', REPORT_DAILY_LIMIT: '0' },
    })
    try {
      const room = 5
      await querySql(
        capped.service.db,
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${MAX_OPEN_REPORTS - room}) ` +
          `INSERT INTO reports (target_id, reason, status, created_at) SELECT 'old', 'old', 'open', 0 FROM n`,
      )
      const id = randomUUID()
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => report(id, { reason: 'at once' }, nextNetwork(), capped)),
      )
      const statuses = answers.map((answer) => answer.status)
      expect(statuses.filter((status) => status === 201)).toHaveLength(room)
      const refused = answers.filter((answer) => answer.status === 429)
      expect(refused).toHaveLength(30 - room)
      expect(refused[0]!.body).toEqual({ error: 'Too many requests' })
      expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await capped.service.services.reports.list('open')).toHaveLength(MAX_OPEN_REPORTS)
    } finally {
      await capped.close()
    }
  })
})
