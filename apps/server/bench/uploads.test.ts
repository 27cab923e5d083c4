/** The benchmarks' chunked upload client against the built server, when it is short of memory. */
import { mkdtemp, rm } from 'node:fs/promises'
import { Agent } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { stopChild, type SpawnedServer } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { MiB, payload, send, startBuiltServer } from './lib.js'
import { uploadInChunks } from './uploads.js'

const SETTINGS = { maxDownloads: '1', expireSec: '3600' }

describe('the benchmarks chunked upload client', () => {
  let dataDir: string
  let server: SpawnedServer
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fileshare-bench-uploads-'))
    // No room for any early chunk: every chunk that arrives before its predecessor answers 429.
    server = await startBuiltServer(dataDir, { FILE_UPLOAD_CHUNK_BUFFER: '1' })
  })
  afterAll(async () => {
    if (server) await stopChild(server.child)
    await rm(dataDir, { recursive: true, force: true })
  })

  it('sends a chunk answered 429 again and stores the whole upload', async () => {
    const size = 6 * MiB + 5
    const chunkSize = MiB
    const upload = await uploadInChunks(server.port, {
      size,
      settings: SETTINGS,
      chunkSize,
      inFlight: 3,
    })
    const agent = new Agent()
    try {
      const answer = await send(server.port, agent, {
        method: 'GET',
        path: `/api/download/${upload.id}`,
        headers: { 'X-Auth-Token': upload.authToken },
      })
      expect(answer.status).toBe(200)
      const expected = Buffer.concat(
        Array.from({ length: Math.ceil(size / chunkSize) }, (_, i) =>
          payload(i, Math.min(chunkSize, size - i * chunkSize)),
        ),
      )
      expect(answer.body.equals(expected)).toBe(true)
    } finally {
      agent.destroy()
    }
  })
})
