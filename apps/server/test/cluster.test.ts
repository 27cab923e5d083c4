/**
 * Three server processes on one PostgreSQL database and one S3 bucket (radosgw) behind nginx,
 * configured as docs/deploy.md says (round robin): limits hold across instances, the background
 * work moves to another instance when its holder is killed, and the service rides out PostgreSQL
 * restarting and fails an upload cleanly when the storage goes away; a chunked upload whose
 * instance is killed resumes through another.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { SpawnedServer } from '@fileshare/testing'
import { postgresMissing, startPostgres, type Postgres } from '@fileshare/testing/postgres'
import { radosgwMissing, startRadosgw, type Radosgw } from '@fileshare/testing/radosgw'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CLEANUP_APPLICATION_NAME, CLEANUP_LOCK_KEY } from '../src/db/leader-lock.js'
import { spawnFromSource } from './spawned-servers.js'
import { startClusterNginx, nginxMissing, type ClusterProxy } from './cluster-nginx.js'
import { noteBody, uploadHeaders } from './harness.js'
import { call, createRequest, init } from './requests.suite.js'
import { s3Env } from './s3-backend.js'

const MiB = 1024 * 1024
/** The per-client request limit of every instance; the rate-limit case spends it all. */
const RATE_LIMIT_MAX = 1000

const missing = nginxMissing() ?? (await postgresMissing()) ?? (await radosgwMissing())
if (missing && process.env.CI === 'true') throw new Error(missing)
if (missing) console.warn(`the cluster suite is skipped: ${missing}`)

describe.skipIf(missing !== null)('three instances behind nginx', () => {
  let dir: string
  let postgres: Postgres
  let gateway: Radosgw
  let databaseUrl: string
  let proxy: ClusterProxy
  let servers: SpawnedServer[] = []
  const front = () => ({ url: proxy.url })

  /** Runs one query on a connection of its own, so a PostgreSQL restart leaves none broken. */
  async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      return await client.query<T>(text, values)
    } finally {
      await client.end()
    }
  }

  /** What every instance is started with (DATA_DIR and PORT apart). */
  let env: Record<string, string>

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fileshare-cluster-'))
    ;[postgres, gateway] = await Promise.all([startPostgres(), startRadosgw()])
    databaseUrl = await postgres.createDatabase()
    env = {
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '5',
      ...s3Env(gateway),
      TRUST_PROXY: 'true',
      BASE_URL: 'http://127.0.0.1',
      LOG_LEVEL: 'info',
      CLEANUP_INTERVAL: '1',
      RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
      FILE_UPLOAD_QUOTA_BYTES: '0',
      NOTE_EXPIRE_OPTIONS_SEC: '2,3600',
      NOTE_VIEW_OPTIONS: '3,5,100',
      FILE_DOWNLOAD_OPTIONS: '1,5',
      FILE_REQUEST_UPLOAD_OPTIONS: '3,5',
      FILE_REQUEST_DOWNLOAD_OPTIONS: '1,2',
      FILE_REQUEST_DAILY_LIMIT: '0',
      FILE_CHUNK_MAX_SIZE: String(MiB),
      OIDC_SESSION_SECRET: randomBytes(32).toString('hex'),
    }
    // One after the other, so the migrations' lock is not what is tested here.
    for (let i = 0; i < 3; i++) {
      servers.push(await spawnFromSource({ ...env, DATA_DIR: join(dir, `instance-${i}`) }))
    }
    proxy = await startClusterNginx(
      dir,
      servers.map((server) => `127.0.0.1:${server.port}`),
    )
  }, 180_000)

  afterAll(async () => {
    await proxy?.stop()
    await Promise.all(servers.map((server) => server.stop()))
    await Promise.all([postgres?.stop(), gateway?.stop()])
    if (dir) await rm(dir, { recursive: true, force: true })
  }, 60_000)

  /** How many requests of `path` each instance has logged so far. */
  const served = (pattern: RegExp) =>
    servers.map(
      (server) =>
        server
          .output()
          .split('\n')
          .filter((line) => pattern.test(line)).length,
    )

  it('counts 5 of 50 concurrent downloads of a 5-download upload, spread over all instances', async () => {
    const headers = uploadHeaders(1000, { 'X-Max-Downloads': '5' }, 'Content-Length')
    const up = await fetch(`${proxy.url}/api/upload`, {
      method: 'POST',
      headers,
      body: randomBytes(1000),
    })
    expect(up.status).toBe(200)
    const { id } = (await up.json()) as { id: string }
    const before = served(/GET \/api\/download\/:id/)

    const statuses = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${proxy.url}/api/download/${id}`, {
          headers: { 'X-Auth-Token': headers['X-Auth-Token']! },
        })
        await res.arrayBuffer()
        return res.status
      }),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s !== 200 && s !== 410)).toEqual([])
    const after = served(/GET \/api\/download\/:id/)
    for (let i = 0; i < 3; i++) expect(after[i]! - before[i]!).toBeGreaterThan(0)
  })

  it('answers 3 of 50 concurrent views of a 3-view note', async () => {
    const body = noteBody({ maxViews: 3 })
    const created = await call(front(), 'POST', '/note', { body })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    const statuses = await Promise.all(
      Array.from(
        { length: 50 },
        async () =>
          (await call(front(), 'POST', `/note/${id}/view`, { body: { authToken: body.authToken } }))
            .status,
      ),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(3)
    expect(statuses.filter((s) => s !== 200 && s !== 410 && s !== 404)).toEqual([])
  })

  it('opens 3 of 20 concurrent request uploads on 3 slots', async () => {
    const req = await createRequest(front(), { maxUploads: 3, downloads: 1 })
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => (await init(front(), req, 1000)).status),
    )
    expect(statuses.filter((s) => s === 201)).toHaveLength(3)
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([])
  })

  it('refuses the request past the rate limit, whichever instance it reaches', async () => {
    // A client address of its own, so the other cases' requests do not count.
    const statuses: number[] = []
    for (let i = 0; i <= RATE_LIMIT_MAX; i++) {
      statuses.push(await statusFrom('127.0.0.7', `${proxy.url}/api/config`))
    }
    expect(statuses.slice(0, RATE_LIMIT_MAX).every((s) => s === 200)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
  })

  it('joins a chunked upload whose chunks reach different instances, byte-exact', async () => {
    const bytes = randomBytes(5 * MiB + 1234)
    const id = await uploadChunked(proxy.url, bytes, () => undefined)
    expect((await downloadBytes(proxy.url, id.id, id.authToken)).equals(bytes)).toBe(true)
  }, 60_000)

  it('hands the background work to another instance when its holder is killed', async () => {
    const holder = await lockHolder()
    const victim = servers.find((server) => server.child.pid === holder)
    expect(victim, `lock held by process ${holder}`).toBeDefined()
    victim!.child.kill('SIGKILL')
    await victim!.exited
    servers = servers.filter((server) => server !== victim)

    // A note that expires after the kill: only a running cleanup removes it.
    const created = await call(front(), 'POST', '/note', { body: noteBody({ expireSec: 2 }) })
    expect(created.status).toBe(201)
    const id = created.body.id as string

    await expect
      .poll(() => lockHolder(), { timeout: 20_000, interval: 200 })
      .toSatisfy((pid) => servers.some((server) => server.child.pid === pid))
    await expect
      .poll(async () => (await sql('SELECT 1 FROM notes WHERE id = $1', [id])).rowCount, {
        timeout: 20_000,
        interval: 250,
      })
      .toBe(0)
    const holderNow = await lockHolder()
    const next = servers.find((server) => server.child.pid === holderNow)
    expect(next?.output()).toMatch(/runs the background work/)
  }, 60_000)

  /** The process id of the instance holding the background work's lock, from PostgreSQL. */
  async function lockHolder(): Promise<number | undefined> {
    const { rows } = await sql<{ name: string }>(
      `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a USING (pid)
       WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted`,
      [CLEANUP_LOCK_KEY],
    )
    const name = rows[0]?.name
    return name?.startsWith(`${CLEANUP_APPLICATION_NAME} `)
      ? Number(name.slice(CLEANUP_APPLICATION_NAME.length + 1))
      : undefined
  }

  it('resumes a chunked upload from its status through another instance when its own is killed', async () => {
    const bytes = randomBytes(4 * MiB + 77)
    const headers = uploadHeaders(bytes.length, { 'X-Max-Downloads': '5' })
    const owner = { 'X-Owner-Token': headers['X-Owner-Token']! }
    // The first chunks reach one instance directly, which then dies.
    const victim = servers[0]!
    const started = await call(victim, 'POST', '/upload/init', { headers })
    expect(started.status).toBe(201)
    const id = started.body.id as string
    const piece = (index: number) => new Uint8Array(bytes.subarray(index * MiB, (index + 1) * MiB))
    for (const index of [0, 1]) {
      const sent = await call(victim, 'POST', `/upload/${id}/chunk?index=${index}`, {
        body: piece(index),
      })
      expect(sent.status).toBe(200)
    }
    victim.child.kill('SIGKILL')
    await victim.exited
    try {
      // Through the proxy, which reaches the instances still running.
      let status = await call(front(), 'GET', `/upload/${id}/status`, { headers: owner })
      for (let attempt = 0; attempt < 3 && status.status === 502; attempt++) {
        status = await call(front(), 'GET', `/upload/${id}/status`, { headers: owner })
      }
      expect(status.status).toBe(200)
      expect(status.body).toEqual({
        bytesWritten: 2 * MiB,
        nextIndex: 2,
        declaredSize: bytes.length,
        transport: 'chunks',
      })
      for (let index = 2; index * MiB < bytes.length; index++) {
        let sent = 0
        for (let attempt = 0; attempt < 3 && (sent === 0 || sent === 502); attempt++) {
          sent = (
            await call(front(), 'POST', `/upload/${id}/chunk?index=${index}`, {
              body: piece(index),
            })
          ).status
        }
        expect(sent).toBe(200)
      }
      const done = await call(front(), 'POST', `/upload/${id}/finalize`, { headers: owner })
      expect(done.status).toBe(200)
      expect((await downloadBytes(proxy.url, id, headers['X-Auth-Token']!)).equals(bytes)).toBe(
        true,
      )
    } finally {
      // Back on its port, so the proxy has its instances again for the cases after this one.
      const index = servers.indexOf(victim)
      servers[index] = await spawnFromSource({
        ...env,
        DATA_DIR: join(dir, 'instance-restarted'),
        PORT: String(victim.port),
      })
    }
  }, 90_000)

  it('finishes a chunked upload on the other instances when one dies half way', async () => {
    const bytes = randomBytes(6 * MiB)
    const up = await uploadChunked(proxy.url, bytes, (index) => {
      if (index === 3 && servers.length > 1) {
        const victim = servers.shift()!
        victim.child.kill('SIGKILL')
      }
    })
    expect((await downloadBytes(proxy.url, up.id, up.authToken)).equals(bytes)).toBe(true)
  }, 60_000)

  it('answers 503 while PostgreSQL restarts, overshoots no view limit and recovers', async () => {
    const body = noteBody({ maxViews: 100 })
    const created = await call(front(), 'POST', '/note', { body })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    const statuses: number[] = []
    let load = true
    const worker = async () => {
      while (load) {
        const res = await call(front(), 'POST', `/note/${id}/view`, {
          body: { authToken: body.authToken },
        })
        statuses.push(res.status)
        if (res.status === 503) {
          expect(res.body).toEqual({ error: 'Service temporarily unavailable' })
        }
        // Paced, so the load stays under the per-client rate limit.
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const workers = Array.from({ length: 4 }, worker)
    let downAt: number
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      await postgres.pause()
      downAt = statuses.length
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const health = await fetch(`${servers[0]!.url}/api/health`)
      expect(health.status).toBe(503)
      expect(await health.json()).toMatchObject({ database: 'unavailable', storage: 'ok' })
      await postgres.start()
      await expect
        .poll(async () => (await fetch(`${servers[0]!.url}/api/ready`)).status, {
          timeout: 20_000,
        })
        .toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 300))
    } finally {
      load = false
      await Promise.all(workers)
    }

    expect(statuses.slice(downAt)).toContain(503)
    expect(statuses.filter((s) => s !== 200 && s !== 503 && s !== 410)).toEqual([])
    const answered = statuses.filter((s) => s === 200).length
    const { rows } = await sql<{ views: number }>(
      'SELECT view_count AS views FROM notes WHERE id = $1',
      [id],
    )
    // A view counted just before the connection dropped may have been answered 503.
    const counted = rows[0]?.views ?? 100
    expect(counted).toBeGreaterThanOrEqual(Math.min(answered, 100))
    expect(counted).toBeLessThanOrEqual(100)
    expect(answered).toBeLessThanOrEqual(100)
    // Every instance serves again without a restart.
    for (let i = 0; i < servers.length * 2; i++) {
      const again = await call(front(), 'POST', '/note', { body: noteBody() })
      expect(again.status).toBe(201)
    }
  }, 90_000)

  // Last: it stops the storage for good.
  it('fails an upload cleanly when the storage stops, leaving no record', async () => {
    const count = async () =>
      Number((await sql<{ n: string }>('SELECT count(*) AS n FROM uploads')).rows[0]!.n)
    const before = await count()
    const size = 64 * MiB
    const headers = uploadHeaders(size, {}, 'Content-Length')
    let sent = 0
    let stopped: Promise<void> | undefined
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= size) return controller.close()
        if (sent >= 8 * MiB && stopped === undefined) stopped = gateway.stop()
        if (stopped) await stopped
        const piece = randomBytes(Math.min(MiB, size - sent))
        sent += piece.length
        controller.enqueue(new Uint8Array(piece))
      },
    })
    const answer = await fetch(`${proxy.url}/api/upload`, {
      method: 'POST',
      headers,
      body,
      duplex: 'half',
    } as RequestInit).then(
      async (res) => ({ status: res.status, body: await res.text() }),
      (error: unknown) => ({ status: 0, body: String(error) }),
    )
    expect(stopped).toBeDefined()
    expect(answer.status, answer.body).toBe(503)
    expect(JSON.parse(answer.body)).toEqual({ error: 'Service temporarily unavailable' })
    expect(await count()).toBe(before)
    const health = await fetch(`${servers[0]!.url}/api/health`)
    expect(health.status).toBe(503)
    expect(await health.json()).toMatchObject({ database: 'ok', storage: 'unavailable' })
  }, 90_000)
})

/** GET `url` from the local address `from` (another loopback address counts as another client). */
function statusFrom(from: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: from }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
    })
    req.once('error', reject)
    req.end()
  })
}

/**
 * Uploads `bytes` in chunks of 1 MiB through `base`, one after the other so that round robin
 * sends them to different instances, retrying a chunk the proxy could not deliver; `beforeChunk`
 * runs before each chunk is sent.
 */
async function uploadChunked(
  base: string,
  bytes: Buffer,
  beforeChunk: (index: number) => void,
): Promise<{ id: string; authToken: string }> {
  const headers = uploadHeaders(bytes.length, { 'X-Max-Downloads': '5' })
  const started = await call({ url: base }, 'POST', '/upload/init', { headers })
  expect(started.status).toBe(201)
  const id = started.body.id as string
  for (let index = 0; index * MiB < bytes.length; index++) {
    beforeChunk(index)
    const chunk = new Uint8Array(bytes.subarray(index * MiB, (index + 1) * MiB))
    let status = 0
    // Sent again only when nginx found no instance to take it (the one it chose had just died).
    for (let attempt = 0; attempt < 3 && (status === 0 || status === 502); attempt++) {
      status = (
        await call({ url: base }, 'POST', `/upload/${id}/chunk?index=${index}`, { body: chunk })
      ).status
    }
    expect(status).toBe(200)
  }
  const done = await call({ url: base }, 'POST', `/upload/${id}/finalize`, {
    headers: { 'X-Owner-Token': headers['X-Owner-Token']! },
  })
  expect(done.status).toBe(200)
  return { id, authToken: headers['X-Auth-Token']! }
}

/** The stored bytes of an upload on S3: the download answers a presigned URL. */
async function downloadBytes(base: string, id: string, authToken: string): Promise<Buffer> {
  const res = await fetch(`${base}/api/download/${id}`, { headers: { 'X-Auth-Token': authToken } })
  expect(res.status).toBe(200)
  const { url } = (await res.json()) as { url: string }
  return Buffer.from(await (await fetch(url)).arrayBuffer())
}
