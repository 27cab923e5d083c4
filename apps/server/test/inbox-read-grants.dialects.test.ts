/**
 * Read grants on GET /api/inbox/:id/file/:uid (docs/api.md, Read grants) against the real server
 * with a manual clock: the counted inbox download that asks for one gets a grant bound to that
 * file, ranges read under it do not count, a grant reads only its own file, only while it lasts
 * and the file exists, and a spec client sees the spec's answer unchanged.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { eq } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import {
  manualClock,
  randomToken,
  startTestServer,
  type ManualClock,
  type TestServer,
} from './harness.js'
import { createRequest, ENV, send } from './requests.suite.js'

const GRANT_TTL_SEC = 600
const SIZE = 5000

type Request = Awaited<ReturnType<typeof createRequest>>

function get(
  server: TestServer,
  req: Request,
  uid: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}/api/inbox/${req.id}/file/${uid}`, {
    headers: { 'X-Inbox-Token': req.inboxToken, ...headers },
  })
}

/** The counted download asking for a grant; answers the grant token. */
async function grantedDownload(server: TestServer, req: Request, uid: string): Promise<string> {
  const res = await get(server, req, uid, { 'X-Read-Grant': 'request' })
  expect(res.status).toBe(200)
  await res.arrayBuffer()
  const grant = res.headers.get('x-read-grant')
  expect(grant).toMatch(/^[A-Za-z0-9_-]{43}$/)
  return grant!
}

async function downloadCount(server: TestServer, uid: string): Promise<number | undefined> {
  const { db } = server.service
  const { requestUploads } = db.tables
  const [row] = await db.query
    .select({ count: requestUploads.downloadCount })
    .from(requestUploads)
    .where(eq(requestUploads.id, uid))
  return row?.count
}

async function grantRows(server: TestServer) {
  const { db } = server.service
  return db.query.select().from(db.tables.readGrants)
}

async function errorOf(res: Response): Promise<{ status: number; error: string }> {
  return { status: res.status, error: ((await res.json()) as { error: string }).error }
}

describe('read grants on inbox files', () => {
  let server: TestServer
  let clock: ManualClock

  beforeEach(async () => {
    clock = manualClock()
    server = await startTestServer({
      clock,
      env: { ...ENV, DOWNLOAD_GRANT_TTL_SEC: String(GRANT_TTL_SEC) },
    })
  })

  afterEach(async () => {
    await server.close()
  })

  it('hands out a grant bound to the file with the counted download', async () => {
    const req = await createRequest(server)
    const file = await send(server, req, SIZE)
    const before = clock.now()
    const res = await get(server, req, file.id, { 'X-Read-Grant': 'request', Range: 'bytes=0-0' })
    expect(res.status).toBe(206)
    expect(res.headers.get('content-range')).toBe(`bytes 0-0/${SIZE}`)
    expect(Buffer.from(await res.arrayBuffer()).equals(file.data.subarray(0, 1))).toBe(true)
    expect(res.headers.get('x-read-grant')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.headers.get('accept-ranges')).toBe('bytes')
    expect(Number(res.headers.get('x-read-grant-expires'))).toBe(before + GRANT_TTL_SEC * 1000)
    expect(await downloadCount(server, file.id)).toBe(1)
    const rows = await grantRows(server)
    expect(rows.map((row) => [row.uploadId, row.requestUploadId])).toEqual([[null, file.id]])
  })

  it('reads ranges under the grant without counting a download', async () => {
    const req = await createRequest(server)
    const file = await send(server, req, SIZE)
    const grant = await grantedDownload(server, req, file.id)

    for (let round = 0; round < 3; round++) {
      const res = await get(server, req, file.id, {
        'X-Read-Grant': grant,
        Range: 'bytes=100-1099',
      })
      expect(res.status).toBe(206)
      expect(res.headers.get('content-range')).toBe(`bytes 100-1099/${SIZE}`)
      expect(res.headers.get('content-length')).toBe('1000')
      expect(Buffer.from(await res.arrayBuffer()).equals(file.data.subarray(100, 1100))).toBe(true)
    }
    const whole = await get(server, req, file.id, { 'X-Read-Grant': grant })
    expect(whole.status).toBe(200)
    expect(Buffer.from(await whole.arrayBuffer()).equals(file.data)).toBe(true)
    expect(await downloadCount(server, file.id)).toBe(1)
  })

  it('refuses what the download route refuses, with the same statuses and messages', async () => {
    const req = await createRequest(server)
    const a = await send(server, req, SIZE)
    const b = await send(server, req, SIZE)
    const grantA = await grantedDownload(server, req, a.id)
    const range = { Range: 'bytes=0-9' }

    // A grant reads only the file it was issued for.
    expect(
      await errorOf(await get(server, req, b.id, { 'X-Read-Grant': grantA, ...range })),
    ).toEqual({ status: 401, error: ERROR_MESSAGES.invalidReadGrant })
    for (const wrong of [randomToken(), 'not-a-grant']) {
      expect(
        await errorOf(await get(server, req, a.id, { 'X-Read-Grant': wrong, ...range })),
      ).toEqual({ status: 401, error: ERROR_MESSAGES.invalidReadGrant })
    }
    // The inbox token is checked first, as on the spec's route.
    const stranger = { ...req, inboxToken: randomToken() }
    expect(
      await errorOf(await get(server, stranger, a.id, { 'X-Read-Grant': grantA, ...range })),
    ).toEqual({ status: 404, error: ERROR_MESSAGES.requestNotFound })
    // An inbox file's grant opens nothing on the upload routes.
    const elsewhere = await fetch(`${server.url}/api/download/${a.id}`, {
      headers: { 'X-Auth-Token': randomToken(), 'X-Read-Grant': grantA, ...range },
    })
    expect(elsewhere.status).toBe(404)
    await elsewhere.arrayBuffer()

    for (const bad of ['bytes=5000-', 'bytes=-10', 'bytes=1-2,4-5']) {
      const res = await get(server, req, a.id, { 'X-Read-Grant': grantA, Range: bad })
      expect(res.status).toBe(416)
      expect(res.headers.get('content-range')).toBe(`bytes */${SIZE}`)
      expect((await errorOf(res)).error).toBe(ERROR_MESSAGES.rangeNotSatisfiable)
      const asked = await get(server, req, b.id, { 'X-Read-Grant': 'request', Range: bad })
      expect(asked.status).toBe(416)
      expect(asked.headers.get('x-read-grant')).toBeNull()
      await asked.arrayBuffer()
    }
    expect(await downloadCount(server, a.id)).toBe(1)
    expect(await downloadCount(server, b.id)).toBe(0)

    clock.advance(GRANT_TTL_SEC * 1000)
    expect(
      await errorOf(await get(server, req, a.id, { 'X-Read-Grant': grantA, ...range })),
    ).toEqual({ status: 410, error: ERROR_MESSAGES.readGrantExpired })
  })

  it('refuses a grant once the retention of its file ended', async () => {
    const req = await createRequest(server)
    const file = await send(server, req, SIZE)
    const grant = await grantedDownload(server, req, file.id)
    clock.advance(Number(ENV.FILE_REQUEST_RETENTION_SEC) * 1000)
    expect(await errorOf(await get(server, req, file.id, { 'X-Read-Grant': grant }))).toEqual({
      status: 410,
      error: ERROR_MESSAGES.uploadUnavailable,
    })
  })

  it('gives a spec client the spec answer: no grant, no new header, Range ignored', async () => {
    const req = await createRequest(server)
    const file = await send(server, req, SIZE)
    const res = await get(server, req, file.id, { Range: 'bytes=0-9' })
    expect(res.status).toBe(200)
    expect(Buffer.from(await res.arrayBuffer()).equals(file.data)).toBe(true)
    for (const name of ['accept-ranges', 'content-range', 'x-read-grant', 'x-read-grant-expires']) {
      expect(res.headers.get(name)).toBeNull()
    }
    expect(res.headers.get('content-length')).toBe(String(SIZE))
    expect(await downloadCount(server, file.id)).toBe(1)
    expect(await grantRows(server)).toEqual([])
  })

  it('keeps a used-up file while its grant lasts, then removes both', async () => {
    const req = await createRequest(server, { downloads: 1 })
    const file = await send(server, req, SIZE)
    const grant = await grantedDownload(server, req, file.id)
    expect((await errorOf(await get(server, req, file.id))).status).toBe(410)
    await server.service.cleanup.runOnce()
    const res = await get(server, req, file.id, { 'X-Read-Grant': grant, Range: 'bytes=10-19' })
    expect(res.status).toBe(206)
    expect(Buffer.from(await res.arrayBuffer()).equals(file.data.subarray(10, 20))).toBe(true)

    clock.advance(GRANT_TTL_SEC * 1000)
    await server.service.cleanup.runOnce()
    expect(await downloadCount(server, file.id)).toBeUndefined()
    expect(await grantRows(server)).toEqual([])
  })

  it('drops the grants of a deleted file and of a deleted request', async () => {
    const req = await createRequest(server)
    const deleted = await send(server, req, SIZE)
    const kept = await send(server, req, SIZE)
    const grantD = await grantedDownload(server, req, deleted.id)
    const grantK = await grantedDownload(server, req, kept.id)
    const owner = { 'X-Inbox-Owner-Token': req.ownerToken }
    const del = await fetch(`${server.url}/api/inbox/${req.id}/file/${deleted.id}`, {
      method: 'DELETE',
      headers: owner,
    })
    expect(del.status).toBe(200)
    expect(await errorOf(await get(server, req, deleted.id, { 'X-Read-Grant': grantD }))).toEqual({
      status: 404,
      error: ERROR_MESSAGES.uploadNotFound,
    })
    expect((await grantRows(server)).map((row) => row.requestUploadId)).toEqual([kept.id])

    const gone = await fetch(`${server.url}/api/inbox/${req.id}`, {
      method: 'DELETE',
      headers: owner,
    })
    expect(gone.status).toBe(200)
    expect((await get(server, req, kept.id, { 'X-Read-Grant': grantK })).status).toBe(404)
    expect(await grantRows(server)).toEqual([])
  })
})
