/**
 * Load against the built server in a process of its own, so that its RSS is the server's alone:
 * 200 chunk requests that declare 16 MiB, send a little and stall, and 200 upload sockets that
 * never send `init`. The server's peak RSS stays under LOAD_RSS_LIMIT_MB (docs/api.md), the
 * silent sockets are closed with 1008, and a normal upload completes meanwhile.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import {
  ApiClient,
  bytesSource,
  downloadFile,
  inspectFile,
  parseLink,
  sendFile,
  unlockFile,
} from '@fileshare/protocol'
import type { SpawnedServer } from '@fileshare/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import WebSocket from 'ws'

import { startBuiltServer } from '../bench/lib.js'
import { uploadHeaders } from './harness.js'
import { residentMb } from './process-memory.js'
import { RawRequest } from './raw-request.js'

const MiB = 1024 * 1024
/** The bound on the server's peak RSS under this load (docs/api.md, Limits under load). */
const LOAD_RSS_LIMIT_MB = 300
const SESSIONS = 50
const REQUESTS_PER_SESSION = 4
const SILENT_SOCKETS = 200
/** What each stalled request sends of its declared 16 MiB before it stalls. */
const SENT_BEFORE_STALL = 2 * MiB

let server: SpawnedServer | undefined
let url: string
let dataDir: string
const requests: RawRequest[] = []
const sockets: WebSocket[] = []

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fileshare-load-'))
  // Behind one trusted proxy, so that each silent socket comes from an address of its own.
  server = await startBuiltServer(dataDir, { FILE_MAX_SIZE: '1GB', TRUST_PROXY: '1' })
  url = server.url
})

afterAll(async () => {
  for (const request of requests) request.destroy()
  for (const socket of sockets) socket.terminate()
  await server?.stop()
  await rm(dataDir, { recursive: true, force: true })
})

// Security: slow chunk bodies and silent sockets cannot make the server hold unbounded memory.
it(
  'keeps its RSS bounded under stalled chunk requests and silent sockets, and still serves an upload',
  { timeout: 120_000 },
  async () => {
    const sessions: string[] = []
    for (let i = 0; i < SESSIONS; i++) {
      const res = await fetch(`${url}/api/upload/init`, {
        method: 'POST',
        headers: uploadHeaders(REQUESTS_PER_SESSION * 16 * MiB),
      })
      expect(res.status).toBe(201)
      sessions.push(((await res.json()) as { id: string }).id)
    }
    const first = randomBytes(SENT_BEFORE_STALL)
    for (const id of sessions) {
      for (let index = 0; index < REQUESTS_PER_SESSION; index++) {
        const request = await RawRequest.open(
          url,
          `/api/upload/${id}/chunk?index=${index}`,
          { 'Content-Length': String(16 * MiB) },
          first,
        )
        requests.push(request)
      }
    }
    const socketUrl = `${url.replace(/^http/, 'ws')}/api/upload/ws`
    const closes = await Promise.all(
      Array.from({ length: SILENT_SOCKETS }, async (_, i) => {
        const socket = new WebSocket(socketUrl, {
          headers: { 'X-Forwarded-For': `10.0.${i >> 8}.${i & 255}` },
        })
        sockets.push(socket)
        socket.on('error', () => undefined)
        const closed = new Promise<number>((resolve) => socket.once('close', resolve))
        await new Promise((resolve) => socket.once('open', resolve))
        return closed
      }).map(async (opened) => opened),
    )

    // A normal upload over chunked HTTP, while everything above is held open.
    const api = new ApiClient({ baseUrl: url })
    const bytes = randomBytes(24 * MiB)
    const sent = await sendFile(api, bytesSource(new Uint8Array(bytes)), {
      expireSec: 86_400,
      maxDownloads: 1,
      metadata: {
        archive: false,
        files: [{ name: 'a.bin', type: 'application/octet-stream', size: bytes.length }],
      },
      fileCount: 1,
    })
    expect(sent.transport).toBe('chunks')
    const parsed = parseLink(sent.link).link
    if (parsed.kind !== 'file') throw new Error('not a file link')
    const unlocked = await unlockFile(api, parsed, await inspectFile(api, parsed))
    const download = await downloadFile(api, unlocked)
    const parts: Uint8Array[] = []
    for await (const part of download.stream) parts.push(part)
    expect(Buffer.concat(parts).equals(bytes)).toBe(true)

    // The silent sockets are closed after the 10 s init timeout.
    expect(new Set(await Promise.all(closes))).toEqual(new Set([1008]))
    const { peak } = await residentMb(server!.child.pid!)
    console.log(`server peak RSS under load: ${peak.toFixed(0)} MB`)
    expect(peak).toBeLessThan(LOAD_RSS_LIMIT_MB)
  },
)
