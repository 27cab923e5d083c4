/**
 * Three server processes on one PostgreSQL database and one S3 bucket (radosgw) behind nginx,
 * configured as docs/deploy.md says (round robin): limits hold across instances, the background
 * work moves to another instance when its holder is killed, and the service rides out PostgreSQL
 * restarting and fails an upload cleanly when the storage goes away; a chunked upload and a
 * WebSocket upload (normal and into a request) whose instance is killed resume through another,
 * the WebSocket ones once the dead instance's hold on the session lapses.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { toBase64Url } from '@fileshare/protocol'
import { hasExited, type SpawnedServer } from '@fileshare/testing'
import { postgresMissing, startPostgres, type Postgres } from '@fileshare/testing/postgres'
import { radosgwMissing, startRadosgw, type Radosgw } from '@fileshare/testing/radosgw'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { CLEANUP_APPLICATION_NAME, CLEANUP_LOCK_KEY } from '../src/db/leader-lock.js'
import { HOLD_LAPSE_MS } from '../src/sessions/session-records.js'
import { CHECKPOINT_BYTES } from '../src/sessions/durable-link.js'
import { UPLOAD_IN_PROGRESS_MESSAGE } from '../src/sessions/upload-session.js'
import { spawnFromSource } from './spawned-servers.js'
import { startClusterNginx, nginxMissing, type ClusterProxy } from './cluster-nginx.js'
import { noteBody, socketInitHeaders, uploadHeaders } from './harness.js'
import { PseudoRandomPayload } from './pseudo-random.js'
import { call, createRequest, finalizeBody, init } from './requests.suite.js'
import { s3Env } from './s3-backend.js'
import { TestSocket, type Frame } from './test-socket.js'

const KiB = 1024
const MiB = 1024 * KiB
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

  // Tests that kill an instance take it out of `servers` or start it again: any other that has
  // exited crashed (an unhandled rejection ends Node), and fails the test that crashed it.
  afterEach(() => {
    for (const server of servers) {
      expect(hasExited(server.child), `an instance exited:\n${server.output()}`).toBe(false)
    }
  })

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

  // It spends the whole limit, RATE_LIMIT_MAX requests each through nginx, an instance and the
  // counter in PostgreSQL: a few at a time, which also checks that concurrent requests are all
  // counted, and with the time that many round trips take on a busy machine.
  it('refuses the request past the rate limit, whichever instance it reaches', async () => {
    // A client address of its own, so the other cases' requests do not count.
    const config = async () => (await get(`${proxy.url}/api/config`, { from: '127.0.0.7' })).status
    const statuses: number[] = []
    let started = 0
    const worker = async () => {
      while (started < RATE_LIMIT_MAX) {
        started++
        statuses.push(await config())
      }
    }
    await Promise.all(Array.from({ length: 8 }, worker))
    expect(statuses).toHaveLength(RATE_LIMIT_MAX)
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    expect(await config()).toBe(429)
  }, 60_000)

  it('joins a chunked upload whose chunks reach different instances, byte-exact', async () => {
    const bytes = randomBytes(5 * MiB + 1234)
    const id = await uploadChunked(proxy.url, bytes, () => undefined)
    expect(await storedDigest(await download(proxy.url, id.id, id.authToken))).toBe(sha256(bytes))
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
    // Its client asks to resume: a session that did not would end with the instance it began on.
    const headers = uploadHeaders(bytes.length, { 'X-Max-Downloads': '5', 'X-Resumable': 'true' })
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
      const status = await retryWhileUnreachable(() =>
        call(front(), 'GET', `/upload/${id}/status`, { headers: owner }),
      )
      expect(status.status).toBe(200)
      expect(status.body).toEqual({
        bytesWritten: 2 * MiB,
        nextIndex: 2,
        declaredSize: bytes.length,
        transport: 'chunks',
      })
      for (let index = 2; index * MiB < bytes.length; index++) {
        const sent = await retryWhileUnreachable(() =>
          call(front(), 'POST', `/upload/${id}/chunk?index=${index}`, { body: piece(index) }),
        )
        expect(sent.status).toBe(200)
      }
      const done = await call(front(), 'POST', `/upload/${id}/finalize`, { headers: owner })
      expect(done.status).toBe(200)
      expect(await storedDigest(await download(proxy.url, id, headers['X-Auth-Token']!))).toBe(
        sha256(bytes),
      )
    } finally {
      await restart(victim)
    }
  }, 90_000)

  /** How many instances were started again in place of a killed one. */
  let restarts = 0

  /** Starts a killed instance again on its port, so the cases after this one have all three. */
  async function restart(victim: SpawnedServer): Promise<void> {
    if (!hasExited(victim.child)) victim.child.kill('SIGKILL')
    await victim.exited
    const index = servers.indexOf(victim)
    servers[index] = await spawnFromSource({
      ...env,
      DATA_DIR: join(dir, `instance-restarted-${++restarts}`),
      PORT: String(victim.port),
    })
  }

  for (const kind of [NORMAL_SOCKET, REQUEST_SOCKET]) {
    it(`resumes a WebSocket ${kind.name} through another instance once its killed one lapses`, async () => {
      const payload = new PseudoRandomPayload(40 * MiB + 1234)
      const victim = servers[0]!
      // Opened straight on the victim, whose death then ends the connection.
      const upload = await kind.start(victim.url, front(), payload.size)
      const first = upload.socket
      try {
        const status = () => retryWhileUnreachable(upload.status)
        const durable = await sendUntilDurable(first, payload, async () => {
          const answer = await status()
          expect(answer.status).toBe(200)
          return answer.body.bytesWritten as number
        })
        victim.child.kill('SIGKILL')
        await victim.exited
        first.ws.terminate()
        await first.closed

        // Through the proxy, which reaches the instances still running.
        const reported = await status()
        expect(reported.status).toBe(200)
        expect(reported.body).toEqual({
          bytesWritten: reported.body.bytesWritten,
          nextIndex: null,
          declaredSize: payload.size,
          transport: 'ws',
        })
        const offset = reported.body.bytesWritten as number
        expect(offset).toBeGreaterThanOrEqual(durable)

        const resumed = await resumeOnceLapsed(
          `${wsBase(proxy.url)}${upload.socketPath}`,
          upload.resumeFrame(offset),
        )
        // The dead instance still held the session: the resume waited for its hold to lapse.
        expect(resumed.refusals).toBeGreaterThan(0)
        // S3 continues at the start of the part holding the offset, and durable points are those.
        expect(resumed.offset).toBe(offset)
        const { socket } = resumed
        try {
          await socket.sendPaced(payload.pieces(resumed.offset, payload.size, 256 * KiB))
          socket.sendJson(upload.finalizeFrame)
          expect(await socket.waitFor('done')).toMatchObject({ id: upload.id })
        } finally {
          socket.ws.terminate()
        }
        expect(await storedDigest(await upload.download())).toBe(payload.digest())
      } finally {
        first.ws.terminate()
        await restart(victim)
      }
    }, 150_000)
  }

  it('finishes a chunked upload on the other instances when one dies half way', async () => {
    const bytes = randomBytes(6 * MiB)
    const up = await uploadChunked(proxy.url, bytes, (index) => {
      if (index === 3 && servers.length > 1) {
        const victim = servers.shift()!
        victim.child.kill('SIGKILL')
      }
    })
    expect(await storedDigest(await download(proxy.url, up.id, up.authToken))).toBe(sha256(bytes))
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
      const health = await get(`${servers[0]!.url}/api/health`, { fresh: true })
      expect(health.status).toBe(503)
      expect(JSON.parse(health.text)).toMatchObject({ database: 'unavailable', storage: 'ok' })
      await postgres.start()
      await expect
        .poll(async () => (await get(`${servers[0]!.url}/api/ready`, { fresh: true })).status, {
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
        // Several parts in: the multipart upload exists, and its abort fails with the storage.
        if (sent >= 24 * MiB && stopped === undefined) stopped = gateway.stop()
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
    // The failed upload's discard fails too, after the S3 client's retries: every instance
    // still answers once they are over.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    for (const server of servers) {
      const health = await get(`${server.url}/api/health`, { fresh: true })
      expect(health.status).toBe(503)
      expect(JSON.parse(health.text)).toMatchObject({ database: 'ok', storage: 'unavailable' })
    }
  }, 90_000)
})

type Answer = Awaited<ReturnType<typeof call>>

/** An upload over a WebSocket that a test cuts and resumes on another socket. */
interface SocketUpload {
  id: string
  /** The socket it was opened on. */
  socket: TestSocket
  /** Its status, asked through the proxy. */
  status(): Promise<Answer>
  /** The path of its kind of socket. */
  socketPath: string
  /** The `resume` frame for a new socket, asking to continue at `offset`. */
  resumeFrame(offset: number): Frame
  finalizeFrame: Frame
  /** Its download's first answer, through the proxy (S3: the presigned URL). */
  download(): Promise<Response>
}

interface SocketKind {
  name: string
  /** Opens an upload of `size` bytes on the socket of `instance`; `front` is the proxy. */
  start(instance: string, front: { url: string }, size: number): Promise<SocketUpload>
}

const NORMAL_SOCKET: SocketKind = {
  name: 'upload',
  async start(instance, front, size) {
    const headers = socketInitHeaders(size, { maxDownloads: '5' })
    const authToken = headers.authToken!
    const ownerToken = headers.ownerToken!
    const socketPath = '/api/upload/ws'
    const socket = await TestSocket.open(`${wsBase(instance)}${socketPath}`)
    const id = await socket.init({ type: 'init', headers, resumable: true })
    return {
      id,
      socket,
      socketPath,
      status: () =>
        call(front, 'GET', `/upload/${id}/status`, { headers: { 'X-Owner-Token': ownerToken } }),
      resumeFrame: (offset) => ({ type: 'resume', id, ownerToken, offset }),
      finalizeFrame: { type: 'finalize' },
      download: () => download(front.url, id, authToken),
    }
  },
}

const REQUEST_SOCKET: SocketKind = {
  name: 'upload into a request',
  async start(instance, front, size) {
    const req = await createRequest(front, { maxUploads: 3, downloads: 1, maxSize: 64 * MiB })
    const socketPath = `/api/request/${req.id}/upload/ws`
    const socket = await TestSocket.open(`${wsBase(instance)}${socketPath}`)
    const id = await socket.init({
      type: 'init',
      request: {
        uploadToken: req.uploadToken,
        salt: toBase64Url(randomBytes(32)),
        contentLength: size,
        fileCount: 1,
      },
      resumable: true,
    })
    return {
      id,
      socket,
      socketPath,
      status: () => call(front, 'GET', `/request/${req.id}/upload/${id}/status`),
      resumeFrame: (offset) => ({ type: 'resume', uploadId: id, offset }),
      finalizeFrame: { type: 'finalize', ...finalizeBody() },
      download: () =>
        fetch(`${front.url}/api/inbox/${req.id}/file/${id}`, {
          headers: { 'X-Inbox-Token': req.inboxToken },
        }),
    }
  },
}

/** GET `url` from the local address `from` (another loopback address counts as another client). */
/**
 * GETs `url`, from the local address `from` when given. A `fresh` request has a connection of its
 * own: a probe sent straight to an instance after a long step must not reuse a kept-alive
 * connection that the instance may be closing at that moment.
 */
function get(
  url: string,
  options: { from?: string; fresh?: boolean } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const agent = options.fresh ? false : undefined
    const req = request(url, { localAddress: options.from, agent }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
      )
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
  // As the apps do: a session that did not ask to resume ends with the instance it began on.
  const headers = uploadHeaders(bytes.length, { 'X-Max-Downloads': '5', 'X-Resumable': 'true' })
  const started = await call({ url: base }, 'POST', '/upload/init', { headers })
  expect(started.status).toBe(201)
  const id = started.body.id as string
  for (let index = 0; index * MiB < bytes.length; index++) {
    beforeChunk(index)
    const chunk = new Uint8Array(bytes.subarray(index * MiB, (index + 1) * MiB))
    const sent = await retryWhileUnreachable(() =>
      call({ url: base }, 'POST', `/upload/${id}/chunk?index=${index}`, { body: chunk }),
    )
    expect(sent.status).toBe(200)
  }
  const done = await call({ url: base }, 'POST', `/upload/${id}/finalize`, {
    headers: { 'X-Owner-Token': headers['X-Owner-Token']! },
  })
  expect(done.status).toBe(200)
  return { id, authToken: headers['X-Auth-Token']! }
}

/** The `ws:` address of an `http:` one. */
function wsBase(url: string): string {
  return url.replace(/^http/, 'ws')
}

/** Answers `ask()`, asked again while nginx finds no instance to take it (one had just died). */
async function retryWhileUnreachable(ask: () => Promise<Answer>): Promise<Answer> {
  let answer = await ask()
  for (let attempt = 0; attempt < 3 && answer.status === 502; attempt++) answer = await ask()
  return answer
}

/**
 * Sends `payload` from its start over `socket` until `durable()` reports bytes the server made
 * durable (at least one checkpoint); answers them. A checkpoint is recorded as bytes arrive, so
 * the bytes keep coming, paced, until it shows.
 */
async function sendUntilDurable(
  socket: TestSocket,
  payload: PseudoRandomPayload,
  durable: () => Promise<number>,
): Promise<number> {
  let sent = 0
  for (const piece of payload.pieces(0, payload.size, 256 * KiB)) {
    await socket.sendPaced([piece])
    sent += piece.length
    if (sent < CHECKPOINT_BYTES || sent % MiB !== 0) continue
    const written = await durable()
    if (written > 0) return written
  }
  throw new Error('the whole payload went without a checkpoint')
}

/**
 * Opens a socket at `url` and sends `frame` (a `resume`) until the server answers `ready`: a
 * session its dead holder still held answers 409 until the hold lapses (HOLD_LAPSE_MS), and each
 * refused socket is closed by the server before the next try. Answers the socket, the offset it
 * continues from and how many tries were refused.
 */
async function resumeOnceLapsed(
  url: string,
  frame: Frame,
): Promise<{ socket: TestSocket; offset: number; refusals: number }> {
  const deadline = Date.now() + HOLD_LAPSE_MS + 30_000
  for (let refusals = 0; ; refusals++) {
    const socket = await TestSocket.open(url)
    let ready = false
    try {
      socket.sendJson(frame)
      const answer = await socket.firstFrame()
      if (answer?.type === 'ready') {
        expect(answer.id).toBe(frame.id ?? frame.uploadId)
        ready = true
        return { socket, offset: answer.offset as number, refusals }
      }
      expect(answer).toEqual({ type: 'error', message: UPLOAD_IN_PROGRESS_MESSAGE, status: 409 })
      expect((await socket.closed).code).toBe(1008)
    } finally {
      if (!ready) socket.ws.terminate()
    }
    if (Date.now() > deadline) throw new Error(`still refused after ${refusals + 1} tries`)
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/**
 * SHA-256 (hex) of an upload's stored bytes, streamed from the presigned URL its download's first
 * answer names (S3).
 */
async function storedDigest(answer: Response): Promise<string> {
  expect(answer.status).toBe(200)
  const { url } = (await answer.json()) as { url: string }
  const blob = await fetch(url)
  expect(blob.status).toBe(200)
  const hash = createHash('sha256')
  for await (const part of blob.body!) hash.update(part)
  return hash.digest('hex')
}

/** The first answer of a normal upload's download through `base`. */
function download(base: string, id: string, authToken: string): Promise<Response> {
  return fetch(`${base}/api/download/${id}`, { headers: { 'X-Auth-Token': authToken } })
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}
