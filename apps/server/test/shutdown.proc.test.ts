/**
 * Stopping the real server process: SIGTERM lets a running upload finish within the grace period
 * and exits 0, cutting off a webhook delivery that never ends once the grace is over; SIGKILL in the middle of uploads loses only what was unfinished, and the next start
 * serves every finished upload and leaves no partial file behind.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readdir, stat } from 'node:fs/promises'
import { Agent, request, type ClientRequest } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import {
  createFileRequest,
  openRequest,
  parseLink,
  sendToRequest,
  type RequestLink,
} from '@fileshare/protocol'
import { startStallingWebhook, type SpawnedServer } from '@fileshare/testing'
import { describe, expect, it } from 'vitest'

import { apiFor, randomSource, singleFile } from './client-support.js'
import { uploadHeaders } from './harness.js'
import { spawnedServers } from './spawned-servers.js'

/** The server package; the process runs its sources through tsx, so no build can be stale. */
const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))
const KiB = 1024
const MiB = 1024 * KiB
const GRACE_MS = 15_000

const spawned = spawnedServers('fileshare-shutdown-')

/** The server from its sources in a process of its own, once it listens. */
async function startProcess(dataDir: string): Promise<SpawnedServer> {
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    RATE_LIMIT_MAX: '0',
    // The cleanup job never runs in these tests: what they check must hold without it.
    CLEANUP_INTERVAL: '86400',
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
  }
  return spawned.start(env)
}

/**
 * A script that embeds the service: starts it, awaits close() and prints `closed`, with nothing
 * else to keep its process alive.
 */
const EMBEDDING_SCRIPT = `
import { loadConfig } from './src/config.js'
import { createLogger } from './src/logger.js'
import { startServer } from './src/server.js'
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: process.env.DATA_DIR })
const service = await startServer(config, { version: 'test', logger: createLogger('silent') })
await service.close()
console.log('closed')
`

async function exitOf(server: SpawnedServer, withinMs: number) {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`no exit in ${withinMs} ms:\n${server.output()}`)),
      withinMs,
    ).unref(),
  )
  return Promise.race([server.exited, timeout])
}

interface Reply {
  status: number
  body: Buffer
}

interface Call {
  request: ClientRequest
  reply: Promise<Reply>
}

/** Starts a request whose body the caller writes; Content-Length is always declared up front. */
function open(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  agent?: Agent,
): Call {
  const req = request({
    host: '127.0.0.1',
    port,
    method,
    path,
    headers,
    ...(agent ? { agent } : {}),
  })
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on('error', reject)
    req.once('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('error', reject)
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }))
    })
  })
  return { request: req, reply }
}

function call(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Uint8Array; agent?: Agent } = {},
): Promise<Reply> {
  const body = options.body ?? new Uint8Array()
  const headers = { ...options.headers, 'Content-Length': String(body.length) }
  const { request: req, reply } = open(port, method, path, headers, options.agent)
  req.end(body)
  return reply
}

function json(reply: Reply): Record<string, unknown> {
  return JSON.parse(reply.body.toString()) as Record<string, unknown>
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
  })
}

interface Upload {
  id: string
  headers: Record<string, string>
  body: Buffer
}

async function uploadSingle(port: number, size: number): Promise<Upload> {
  const body = randomBytes(size)
  const headers = uploadHeaders(size, { 'X-Max-Downloads': '5' }, 'Content-Length')
  const reply = await call(port, 'POST', '/api/upload', { headers, body })
  expect(reply.status, reply.body.toString()).toBe(200)
  return { id: json(reply).id as string, headers, body }
}

async function initChunked(
  port: number,
  size: number,
  agent?: Agent,
  extra: Record<string, string> = {},
): Promise<Upload> {
  const headers = uploadHeaders(size, { 'X-Max-Downloads': '5', ...extra })
  const reply = await call(port, 'POST', '/api/upload/init', {
    headers,
    ...(agent ? { agent } : {}),
  })
  expect(reply.status, reply.body.toString()).toBe(201)
  return { id: json(reply).id as string, headers, body: randomBytes(size) }
}

function sendChunk(port: number, upload: Upload, index: number, bytes: Uint8Array, agent?: Agent) {
  return call(port, 'POST', `/api/upload/${upload.id}/chunk?index=${index}`, {
    body: bytes,
    ...(agent ? { agent } : {}),
  })
}

function finalize(port: number, upload: Upload, agent?: Agent) {
  return call(port, 'POST', `/api/upload/${upload.id}/finalize`, {
    headers: { 'X-Owner-Token': upload.headers['X-Owner-Token']! },
    ...(agent ? { agent } : {}),
  })
}

function download(port: number, upload: Upload) {
  return call(port, 'GET', `/api/download/${upload.id}`, {
    headers: { 'X-Auth-Token': upload.headers['X-Auth-Token']! },
  })
}

describe('server process', () => {
  it('lets a script that embeds the service await close() to the end and exit 0', async () => {
    // Shutdown waits on timers and a worker that do not keep a process alive by themselves;
    // without a hold of its own, Node would end this script in the middle of close().
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', EMBEDDING_SCRIPT],
      {
        cwd: SERVER_DIR,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: await spawned.dataDir() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let output = ''
    child.stdout.on('data', (data: Buffer) => (output += data.toString()))
    child.stderr.on('data', (data: Buffer) => (output += data.toString()))
    // 'close' comes once the pipes are read to the end; at 'exit' they may still hold `closed`.
    const [code] = (await once(child, 'close')) as [number | null]
    expect(output.trim()).toBe('closed')
    expect(code).toBe(0)
  })

  it('on SIGTERM refuses new connections, lets a running chunked upload finish, exits 0 and serves it after a restart', async () => {
    const dataDir = await spawned.dataDir()
    const server = await startProcess(dataDir)
    // One keep-alive connection carries the whole upload, as a browser's would.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const chunk = 256 * KiB
    const upload = await initChunked(server.port, 3 * chunk, agent)
    const part = (index: number) => upload.body.subarray(index * chunk, (index + 1) * chunk)
    expect((await sendChunk(server.port, upload, 0, part(0), agent)).status).toBe(200)

    // Chunk 1 is under way when the signal arrives.
    const inFlight = open(
      server.port,
      'POST',
      `/api/upload/${upload.id}/chunk?index=1`,
      { 'Content-Length': String(chunk) },
      agent,
    )
    inFlight.request.write(part(1).subarray(0, chunk / 2))
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.child.kill('SIGTERM')
    await expect
      .poll(() => refusesConnections(server.port), { timeout: 5000, interval: 50 })
      .toBe(true)

    inFlight.request.end(part(1).subarray(chunk / 2))
    expect((await inFlight.reply).status).toBe(200)
    expect((await sendChunk(server.port, upload, 2, part(2), agent)).status).toBe(200)
    const done = await finalize(server.port, upload, agent)
    expect(done.status, done.body.toString()).toBe(200)
    expect(json(done).id).toBe(upload.id)
    agent.destroy()

    expect(await exitOf(server, GRACE_MS + 5000)).toEqual({ code: 0, signal: null })
    expect(server.output()).toContain('fileshare stopping on SIGTERM')

    const restarted = await startProcess(dataDir)
    const got = await download(restarted.port, upload)
    expect(got.status).toBe(200)
    expect(got.body.equals(upload.body)).toBe(true)
  }, 90_000)

  it('on SIGTERM cuts off a webhook delivery that never ends once SHUTDOWN_GRACE_MS is over, and exits 0', async () => {
    const stalling = await startStallingWebhook()
    try {
      const graceMs = 2000
      const server = await spawned.start({
        HOST: '127.0.0.1',
        DATA_DIR: await spawned.dataDir(),
        LOG_LEVEL: 'info',
        RATE_LIMIT_MAX: '0',
        CLEANUP_INTERVAL: '86400',
        SHUTDOWN_GRACE_MS: String(graceMs),
        // Longer than the grace, so that the shutdown, not the deadline, ends the delivery.
        NOTIFY_DELIVERY_TIMEOUT_MS: '60000',
        NOTIFY_ALLOW_PRIVATE: 'true',
        NOTIFY_WEBHOOK_HTTP_HOSTS: '127.0.0.1',
      })
      const api = apiFor(server)
      const created = await createFileRequest(api, {
        message: 'Send me the plan',
        expireSec: 86_400,
        maxUploads: 1,
        maxSize: MiB,
        downloads: 1,
        notifyWebhook: stalling.url,
      })
      const opened = await openRequest(api, parseLink(created.uploadLink).link as RequestLink)
      const file = randomSource(1000)
      const metadata = singleFile('plan.pdf', 1000)
      await sendToRequest(api, opened, file.source, { metadata, fileCount: 1 })
      await stalling.reach({ opened: 1 })

      const stopping = Date.now()
      server.child.kill('SIGTERM')
      expect(await exitOf(server, graceMs + 10_000)).toEqual({ code: 0, signal: null })
      // The delivery had the grace, and not a moment past it held the exit up.
      expect(Date.now() - stopping).toBeGreaterThanOrEqual(graceMs)
      await stalling.reach({ closed: 1 })
      expect(server.output()).toContain('failed: the server is shutting down')
    } finally {
      await stalling.close()
    }
  }, 60_000)

  it('after SIGKILL mid-upload serves the finished uploads and resumes the chunked unfinished ones that asked', async () => {
    const dataDir = await spawned.dataDir()
    const partialDir = join(dataDir, 'blobs', '.partial')
    const chunkDir = join(dataDir, 'blobs', '.chunks')
    // The sessions that own the stored chunks, by the id each chunk's name begins with.
    const chunkOwners = async () => [
      ...new Set((await readdir(chunkDir)).map((name) => name.slice(0, 36))),
    ]
    const server = await startProcess(dataDir)
    const { port } = server

    const single = await uploadSingle(port, 300 * KiB)
    const chunked = await initChunked(port, 3 * MiB)
    expect((await sendChunk(port, chunked, 0, chunked.body.subarray(0, 1.5 * MiB))).status).toBe(
      200,
    )
    expect((await sendChunk(port, chunked, 1, chunked.body.subarray(1.5 * MiB))).status).toBe(200)
    expect((await finalize(port, chunked)).status).toBe(200)
    const finished = [single, chunked]

    // Unfinished: a chunked upload with a megabyte and a half stored, one with a few bytes (both
    // asked to resume), one whose client did not ask, and a single-request upload whose body is
    // still streaming.
    const resumable = { 'X-Resumable': 'true' }
    const large = await initChunked(port, 3 * MiB, undefined, resumable)
    expect((await sendChunk(port, large, 0, large.body.subarray(0, 1.5 * MiB))).status).toBe(200)
    const small = await initChunked(port, 2 * KiB, undefined, resumable)
    expect((await sendChunk(port, small, 0, small.body.subarray(0, KiB))).status).toBe(200)
    const plain = await initChunked(port, 2 * KiB)
    expect((await sendChunk(port, plain, 0, plain.body.subarray(0, KiB))).status).toBe(200)
    const streamingSize = 4 * MiB
    const streaming = open(
      port,
      'POST',
      '/api/upload',
      uploadHeaders(streamingSize, {}, 'Content-Length'),
    )
    // The connection dies with the server; that failure is expected.
    streaming.reply.catch(() => undefined)
    streaming.request.write(randomBytes(2 * MiB))
    const streamingPartial = async () => {
      for (const name of await readdir(partialDir)) {
        if ((await stat(join(partialDir, name))).size > 0) return true
      }
      return false
    }
    await expect.poll(streamingPartial, { timeout: 10_000, interval: 50 }).toBe(true)

    server.child.kill('SIGKILL')
    expect(await exitOf(server, 10_000)).toEqual({ code: null, signal: 'SIGKILL' })
    expect(await readdir(partialDir)).toHaveLength(1)
    expect((await chunkOwners()).sort()).toEqual([large.id, small.id, plain.id].sort())

    const restarted = await startProcess(dataDir)
    const next = restarted.port
    // The single-request upload cannot resume: its partial file goes, and so do the chunks of the
    // chunked one whose client did not ask (spec: a server restart ends a session); the others
    // stay.
    expect(await readdir(partialDir)).toEqual([])
    expect((await chunkOwners()).sort()).toEqual([large.id, small.id].sort())
    const committed = (await readdir(join(dataDir, 'blobs'))).filter(
      (name) => !name.startsWith('.'),
    )
    expect(committed.sort()).toEqual(finished.map((upload) => upload.id).sort())

    for (const upload of finished) {
      const got = await download(next, upload)
      expect(got.status).toBe(200)
      expect(got.body.equals(upload.body)).toBe(true)
    }
    const gone = await sendChunk(next, plain, 1, plain.body.subarray(KiB))
    expect(gone.status, gone.body.toString()).toBe(404)
    for (const upload of [large, small]) {
      expect((await call(next, 'GET', `/api/info/${upload.id}`)).status).toBe(404)
      expect((await download(next, upload)).status).toBe(404)
      expect(json(await call(next, 'GET', `/api/exists/${upload.id}`))).toEqual({ exists: false })
      // The chunks written before the kill were durable: the upload continues at chunk 1.
      const half = upload.body.length / 2
      expect((await sendChunk(next, upload, 0, upload.body.subarray(0, half))).status).toBe(400)
      expect((await sendChunk(next, upload, 1, upload.body.subarray(half))).status).toBe(200)
      expect((await finalize(next, upload)).status).toBe(200)
      const got = await download(next, upload)
      expect(got.status).toBe(200)
      expect(got.body.equals(upload.body)).toBe(true)
    }
    expect(await readdir(partialDir)).toEqual([])
    expect(await readdir(chunkDir)).toEqual([])

    restarted.child.kill('SIGTERM')
    expect(await exitOf(restarted, GRACE_MS + 5000)).toEqual({ code: 0, signal: null })
  }, 90_000)
})
