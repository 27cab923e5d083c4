/**
 * A server process killed with SIGKILL in the middle of a WebSocket upload, then started again
 * on the same data (and bucket): the upload resumes from the durable point its row recorded and
 * completes byte for byte, on the filesystem and on S3.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'

import type { SpawnedServer } from '@fileshare/testing'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { openSqliteConnection } from '../src/db/sqlite-driver.js'
import { FILESYSTEM, s3Backend, type Backend } from './backends.js'
import { socketInitHeaders } from './harness.js'
import { spawnedServers } from './spawned-servers.js'
import { TestSocket } from './test-socket.js'
import { testRadosgw } from './s3-backend.js'

const KiB = 1024
const MiB = 1024 * KiB

const spawned = spawnedServers('fileshare-resume-')

async function startProcess(dataDir: string, backend: Backend): Promise<SpawnedServer> {
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    RATE_LIMIT_MAX: '0',
    FILE_MAX_SIZE: '100MB',
    CLEANUP_INTERVAL: '86400',
    ...backend.env(),
  }
  return spawned.start(env)
}

/** The durable point the session's row records, read from the (running) server's database file. */
async function recorded(dataDir: string, id: string): Promise<number | undefined> {
  const db = await openSqliteConnection(join(dataDir, 'fileshare.db'), 'auto')
  try {
    const row = db.prepare('SELECT bytes_written FROM upload_sessions WHERE id = ?').get([id])
    return row?.[0] as number | undefined
  } finally {
    db.close()
  }
}

/** A download as a client completes it: on S3 through the presigned URL the server answers. */
async function download(url: string, id: string, authToken: string): Promise<Buffer> {
  const res = await fetch(`${url}/api/download/${id}`, { headers: { 'X-Auth-Token': authToken } })
  expect(res.status).toBe(200)
  if (!res.headers.get('content-type')?.startsWith('application/json')) {
    return Buffer.from(await res.arrayBuffer())
  }
  const { url: blobUrl } = (await res.json()) as { url: string }
  return Buffer.from(await (await fetch(blobUrl)).arrayBuffer())
}

const missing = await radosgwMissing()
if (missing) console.warn(missing)

describe.each([
  ['filesystem', false],
  ['s3', true],
])('a server killed mid-upload (%s)', { timeout: 120_000 }, (_name, onS3) => {
  let gateway: Radosgw | undefined
  beforeAll(async () => {
    if (onS3 && missing === null) gateway = testRadosgw()
  }, 90_000)
  afterAll(() => gateway?.stop())

  it.skipIf(onS3 && missing !== null)(
    'resumes the upload after a restart and completes it byte for byte',
    async () => {
      const backend = onS3
        ? s3Backend(() => {
            if (!gateway) throw new Error('radosgw did not start')
            return gateway
          })
        : FILESYSTEM
      // One bucket for both runs of the server.
      const env = backend.env()
      const fixed: Backend = { name: backend.name, env: () => env }
      const dataDir = await spawned.dataDir()
      const server = await startProcess(dataDir, fixed)
      const url = `${server.url.replace(/^http/, 'ws')}/api/upload/ws`
      const body = randomBytes(48 * MiB + 777)
      const headers = socketInitHeaders(body.length)
      const authToken = headers.authToken!
      const ownerToken = headers.ownerToken!
      const socket = await TestSocket.open(url)
      const id = await socket.init({ type: 'init', headers, resumable: true })
      // One whose client did not ask to resume: the restart ends it (spec: server restart).
      const plainHeaders = socketInitHeaders(MiB)
      const plain = await TestSocket.open(url)
      const plainId = await plain.init({ type: 'init', headers: plainHeaders })
      plain.sendBytes(randomBytes(KiB))
      socket.sendBytes(body.subarray(0, 40 * MiB), 256 * KiB)
      // Past a checkpoint or two: the row records a durable point beyond the first bytes.
      await expect
        .poll(async () => (await recorded(dataDir, id)) ?? 0, { timeout: 60_000, interval: 100 })
        .toBeGreaterThanOrEqual(16 * MiB)
      server.child.kill('SIGKILL')
      await server.exited
      await socket.closed
      await plain.closed
      const durable = (await recorded(dataDir, id))!
      expect(await recorded(dataDir, plainId)).toBeDefined()

      const restarted = await startProcess(dataDir, fixed)
      expect(await recorded(dataDir, plainId)).toBeUndefined()
      const gone = await TestSocket.open(`${restarted.url.replace(/^http/, 'ws')}/api/upload/ws`)
      const plainResume = {
        type: 'resume',
        id: plainId,
        ownerToken: plainHeaders.ownerToken,
        offset: 0,
      }
      expect(await gone.refusal(plainResume)).toEqual({
        type: 'error',
        message: 'Upload not found',
        status: 404,
      })
      const next = await TestSocket.open(`${restarted.url.replace(/^http/, 'ws')}/api/upload/ws`)
      next.sendJson({ type: 'resume', id, ownerToken, offset: durable })
      const ready = await next.waitFor('ready')
      const from = ready.offset as number
      expect(from).toBeGreaterThan(0)
      expect(from).toBeLessThanOrEqual(durable)
      next.sendBytes(body.subarray(from), 256 * KiB)
      next.sendJson({ type: 'finalize' })
      const done = await next.waitFor('done')
      expect(done.id).toBe(id)

      expect((await download(restarted.url, id, authToken)).equals(body)).toBe(true)
    },
  )
})
