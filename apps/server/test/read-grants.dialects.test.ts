/**
 * Read grants on GET /api/download/:id (docs/api.md, Read grants) against the real server with a
 * manual clock: the counted download that asks for one gets a grant, ranges read under it do not
 * count, and a grant reads only its own upload, only while it lasts and the upload exists; a spec
 * client sees the spec's answer unchanged.
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { crashAt } from './db-faults.js'
import { querySql } from './dialects.js'

import {
  manualClock,
  randomToken,
  startTestServer,
  uploadHeaders,
  type ManualClock,
  type TestServer,
} from './harness.js'

const HOUR = 3_600_000

interface Uploaded {
  id: string
  authToken: string
  ownerToken: string
  body: Buffer
}

async function upload(server: TestServer, maxDownloads = 3, expireSec = 86400): Promise<Uploaded> {
  const size = 5000
  const body = randomBytes(size)
  const settings = { 'X-Max-Downloads': String(maxDownloads), 'X-Expire-Sec': String(expireSec) }
  const headers = uploadHeaders(size, settings, 'Content-Length')
  const res = await fetch(`${server.url}/api/upload`, { method: 'POST', headers, body })
  expect(res.status, await res.clone().text()).toBe(200)
  const { id } = (await res.json()) as { id: string }
  return { id, authToken: headers['X-Auth-Token']!, ownerToken: headers['X-Owner-Token']!, body }
}

function get(server: TestServer, file: Uploaded, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/download/${file.id}`, {
    headers: { 'X-Auth-Token': file.authToken, ...headers },
  })
}

/** The counted download asking for a grant; answers the grant token. */
async function grantedDownload(server: TestServer, file: Uploaded): Promise<string> {
  const res = await get(server, file, { 'X-Read-Grant': 'request' })
  expect(res.status).toBe(200)
  expect(Buffer.from(await res.arrayBuffer()).equals(file.body)).toBe(true)
  const grant = res.headers.get('x-read-grant')
  expect(grant).toMatch(/^[A-Za-z0-9_-]{43}$/)
  return grant!
}

async function downloadCount(server: TestServer, file: Uploaded): Promise<number | null> {
  const res = await fetch(`${server.url}/api/info/${file.id}`)
  if (res.status !== 200) return null
  return ((await res.json()) as { downloadCount: number }).downloadCount
}

async function errorOf(res: Response): Promise<{ status: number; error: string }> {
  return { status: res.status, error: ((await res.json()) as { error: string }).error }
}

describe('read grants', () => {
  let server: TestServer
  let clock: ManualClock

  beforeEach(async () => {
    clock = manualClock()
    server = await startTestServer({ clock, env: { CLEANUP_INTERVAL: '86400' } })
  })

  afterEach(async () => {
    await server.close()
  })

  it('hands out a grant with the counted download, lasting DOWNLOAD_GRANT_TTL_SEC', async () => {
    const file = await upload(server)
    const before = clock.now()
    const res = await get(server, file, { 'X-Read-Grant': 'request' })
    await res.arrayBuffer()
    expect(res.headers.get('x-read-grant')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.headers.get('accept-ranges')).toBe('bytes')
    expect(Number(res.headers.get('x-read-grant-expires'))).toBe(before + 6 * HOUR)
    expect(await downloadCount(server, file)).toBe(1)
  })

  it('gives the download back when its grant cannot be stored', async () => {
    const file = await upload(server, 2)
    // Every insert into read_grants fails, as a full disk or a lost connection would.
    await crashAt(server.service.db, 'refuse_insert', 'INSERT', 'read_grants', '1 = 1')
    const res = await get(server, file, { 'X-Read-Grant': 'request' })
    expect(res.status).toBe(500)
    await res.arrayBuffer()
    expect(await downloadCount(server, file)).toBe(0)

    const plain = await get(server, file)
    expect(plain.status).toBe(200)
    expect(Buffer.from(await plain.arrayBuffer()).equals(file.body)).toBe(true)
    expect(await downloadCount(server, file)).toBe(1)
  })

  it('reads ranges under the grant without counting a download', async () => {
    const file = await upload(server)
    const grant = await grantedDownload(server, file)
    expect(await downloadCount(server, file)).toBe(1)

    const closed = await get(server, file, { 'X-Read-Grant': grant, Range: 'bytes=100-1099' })
    expect(closed.status).toBe(206)
    expect(closed.headers.get('content-range')).toBe('bytes 100-1099/5000')
    expect(closed.headers.get('content-length')).toBe('1000')
    expect(closed.headers.get('accept-ranges')).toBe('bytes')
    expect(Buffer.from(await closed.arrayBuffer()).equals(file.body.subarray(100, 1100))).toBe(true)

    const open = await get(server, file, { 'X-Read-Grant': grant, Range: 'bytes=4990-' })
    expect(open.status).toBe(206)
    expect(open.headers.get('content-range')).toBe('bytes 4990-4999/5000')
    expect(Buffer.from(await open.arrayBuffer()).equals(file.body.subarray(4990))).toBe(true)

    const past = await get(server, file, { 'X-Read-Grant': grant, Range: 'bytes=4999-9999' })
    expect(past.status).toBe(206)
    expect(past.headers.get('content-range')).toBe('bytes 4999-4999/5000')
    await past.arrayBuffer()

    expect(await downloadCount(server, file)).toBe(1)
  })

  it('answers a range asked for with the grant as 206, counting the download once', async () => {
    const file = await upload(server)
    const res = await get(server, file, { 'X-Read-Grant': 'request', Range: 'bytes=4000-' })
    expect(res.status).toBe(206)
    expect(res.headers.get('content-range')).toBe('bytes 4000-4999/5000')
    expect(res.headers.get('content-length')).toBe('1000')
    expect(Buffer.from(await res.arrayBuffer()).equals(file.body.subarray(4000))).toBe(true)
    const grant = res.headers.get('x-read-grant')!
    expect(grant).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await downloadCount(server, file)).toBe(1)

    const more = await get(server, file, { 'X-Read-Grant': grant, Range: 'bytes=0-9' })
    expect(more.status).toBe(206)
    expect(Buffer.from(await more.arrayBuffer()).equals(file.body.subarray(0, 10))).toBe(true)
    expect(await downloadCount(server, file)).toBe(1)
  })

  it('opens only the range asked for with the grant, never the whole blob', async () => {
    const file = await upload(server)
    const blobs = server.service.blobs
    const { open } = blobs
    if (open === undefined) throw new Error('the test store opens blobs')
    let wholeOpens = 0
    blobs.open = (key, bounds) => {
      if (bounds === undefined) wholeOpens++
      return open.call(blobs, key, bounds)
    }
    try {
      const res = await get(server, file, { 'X-Read-Grant': 'request', Range: 'bytes=0-0' })
      expect(res.status).toBe(206)
      expect(Buffer.from(await res.arrayBuffer()).equals(file.body.subarray(0, 1))).toBe(true)
    } finally {
      blobs.open = open
    }
    expect(wholeOpens).toBe(0)
  })

  it('leaves no grant when the range asked for with it cannot be opened', async () => {
    // Property: a handout that fails gives its count back and leaves nothing that reads the file.
    const file = await upload(server)
    const blobs = server.service.blobs
    const { open } = blobs
    if (open === undefined) throw new Error('the test store reads ranges')
    blobs.open = (key, bounds) =>
      bounds === undefined
        ? open.call(blobs, key)
        : Promise.reject(new Error('the store refuses ranges'))
    try {
      const res = await get(server, file, { 'X-Read-Grant': 'request', Range: 'bytes=0-0' })
      expect(res.status).toBe(500)
      await res.arrayBuffer()
    } finally {
      blobs.open = open
    }
    expect(await downloadCount(server, file)).toBe(0)
    expect(await querySql(server.service.db, 'SELECT expires_at FROM read_grants')).toEqual([])
  })

  it('refuses a bad range asked for with the grant with 416, counting nothing', async () => {
    const file = await upload(server)
    for (const range of ['bytes=5000-', 'bytes=-10', 'bytes=1-2,4-5']) {
      const res = await get(server, file, { 'X-Read-Grant': 'request', Range: range })
      expect(res.status).toBe(416)
      expect(res.headers.get('content-range')).toBe('bytes */5000')
      expect(res.headers.get('x-read-grant')).toBeNull()
      await res.arrayBuffer()
    }
    expect(await downloadCount(server, file)).toBe(0)
  })

  it('answers 416 with the size for a range that is not one satisfiable byte range', async () => {
    const file = await upload(server)
    const grant = await grantedDownload(server, file)
    const bad = [
      'bytes=5000-',
      'bytes=10-5',
      'bytes=0-1,5-9',
      'bytes=-100',
      'bytes=01-5',
      'bytes= 0-5',
      'items=0-5',
      'bytes=0-99999999999999999',
    ]
    for (const range of bad) {
      const res = await get(server, file, { 'X-Read-Grant': grant, Range: range })
      expect({ range, status: res.status }).toEqual({ range, status: 416 })
      expect(res.headers.get('content-range')).toBe('bytes */5000')
      expect((await errorOf(res)).error).toBe(ERROR_MESSAGES.rangeNotSatisfiable)
    }
    expect(await downloadCount(server, file)).toBe(1)
  })

  it('refuses a grant for another upload, a wrong grant and a wrong auth token', async () => {
    const a = await upload(server)
    const b = await upload(server)
    const grantA = await grantedDownload(server, a)
    await grantedDownload(server, b)
    const range = { Range: 'bytes=0-9' }
    expect(await errorOf(await get(server, b, { 'X-Read-Grant': grantA, ...range }))).toEqual({
      status: 401,
      error: ERROR_MESSAGES.invalidReadGrant,
    })
    const wrong = randomToken()
    expect(await errorOf(await get(server, a, { 'X-Read-Grant': wrong, ...range }))).toEqual({
      status: 401,
      error: ERROR_MESSAGES.invalidReadGrant,
    })
    const stranger = { ...a, authToken: randomToken() }
    expect(
      await errorOf(await get(server, stranger, { 'X-Read-Grant': grantA, ...range })),
    ).toEqual({ status: 401, error: ERROR_MESSAGES.invalidOrMissingAuthToken })
    expect(await downloadCount(server, a)).toBe(1)
    expect(await downloadCount(server, b)).toBe(1)
  })

  it('refuses a lapsed grant with its own 410 message', async () => {
    const file = await upload(server)
    const grant = await grantedDownload(server, file)
    clock.advance(6 * HOUR - 1)
    const last = await get(server, file, { 'X-Read-Grant': grant, Range: 'bytes=0-9' })
    expect(last.status).toBe(206)
    await last.arrayBuffer()
    clock.advance(1)
    expect(await errorOf(await get(server, file, { 'X-Read-Grant': grant }))).toEqual({
      status: 410,
      error: ERROR_MESSAGES.readGrantExpired,
    })
  })

  it('keeps reading after the download limit is reached, through a cleanup run', async () => {
    const file = await upload(server, 1)
    const grant = await grantedDownload(server, file)
    expect((await errorOf(await get(server, file))).status).toBe(410)
    await server.service.cleanup.runOnce()
    const res = await get(server, file, { 'X-Read-Grant': grant, Range: 'bytes=10-19' })
    expect(res.status).toBe(206)
    expect(Buffer.from(await res.arrayBuffer()).equals(file.body.subarray(10, 20))).toBe(true)

    // Once the grant lapsed, the cleanup job removes the used-up upload with its grant.
    clock.advance(6 * HOUR)
    await server.service.cleanup.runOnce()
    expect((await get(server, file, { 'X-Read-Grant': grant })).status).toBe(410)
    const grants = await server.service.db.query.select().from(server.service.db.tables.readGrants)
    expect(grants).toEqual([])
  })

  it('refuses a grant once its upload is deleted or expired', async () => {
    const deleted = await upload(server)
    const grantD = await grantedDownload(server, deleted)
    const del = await fetch(`${server.url}/api/upload/${deleted.id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': deleted.ownerToken },
    })
    expect(del.status).toBe(200)
    expect((await get(server, deleted, { 'X-Read-Grant': grantD })).status).toBe(404)
    const grants = await server.service.db.query.select().from(server.service.db.tables.readGrants)
    expect(grants).toEqual([])

    const expiring = await upload(server, 3, 300)
    const grantE = await grantedDownload(server, expiring)
    clock.advance(300_000)
    expect(await errorOf(await get(server, expiring, { 'X-Read-Grant': grantE }))).toEqual({
      status: 410,
      error: ERROR_MESSAGES.uploadUnavailable,
    })
  })

  it('gives a spec client the spec answer: no grant, no new header, Range ignored', async () => {
    const file = await upload(server)
    const res = await get(server, file, { Range: 'bytes=0-9' })
    expect(res.status).toBe(200)
    expect(Buffer.from(await res.arrayBuffer()).equals(file.body)).toBe(true)
    const names = [...res.headers.keys()].filter((name) => !name.startsWith('x-ratelimit'))
    expect(names.sort()).toEqual([
      'cache-control',
      'connection',
      'content-length',
      'content-security-policy',
      'content-type',
      'cross-origin-opener-policy',
      'date',
      'keep-alive',
      'permissions-policy',
      'referrer-policy',
      'x-content-type-options',
      'x-file-count',
      'x-frame-options',
    ])
    expect(res.headers.get('accept-ranges')).toBeNull()
    expect(res.headers.get('content-range')).toBeNull()
    expect(res.headers.get('x-read-grant')).toBeNull()
    expect(res.headers.get('x-read-grant-expires')).toBeNull()
    expect(await downloadCount(server, file)).toBe(1)
    const grants = await server.service.db.query.select().from(server.service.db.tables.readGrants)
    expect(grants).toEqual([])
  })
})
