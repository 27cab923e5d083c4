/**
 * `POST /api/report/:id` on the real server: the body's limits, the per-IP report limit (shared
 * by the instances on PostgreSQL), and an answer that says nothing of whether the id exists.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { noteBody, startTestServer, type TestServer } from './harness.js'
import { call, nextIp } from './requests.suite.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    env: { TRUST_PROXY: 'true', REPORT_RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '60000' },
  })
})
afterAll(() => server.close())

const key = () => randomBytes(34).toString('base64url')

function report(id: string, body: unknown, ip = nextIp()) {
  return call(server, 'POST', `/report/${id}`, { body, ip })
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

  it('limits reports per IP and window, apart from the /api limit', async () => {
    const ip = nextIp()
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
})
