/**
 * Two instances on one PostgreSQL database and one DATA_DIR, in one process: what an instance
 * does at its start and in its cleanup leaves the chunked sessions of the other alone (their
 * request slots and the chunks they stored), since those sessions live in the database.
 */
import { randomBytes } from 'node:crypto'
import { readdir, utimes } from 'node:fs/promises'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { PARTIAL_MARGIN_MS } from '../src/services/cleanup.js'
import { startTestServer, type TestServer } from './harness.js'
import {
  ENV,
  HOUR,
  chunk,
  createRequest,
  downloadFile,
  finalize,
  finalizeBody,
  init,
  initOk,
  readRequest,
} from './requests.suite.js'

/** Makes every file under `dir` look as old as `ageMs`. */
async function age(dir: string, ageMs: number): Promise<number> {
  const names = await readdir(dir).catch(() => [])
  const at = (Date.now() - ageMs) / 1000
  for (const name of names) await utimes(join(dir, name), at, at)
  return names.length
}

describe('chunked sessions of one instance, seen from another', () => {
  it('keep their request slot when another instance starts, and its cleanup leaves them alone', async () => {
    const a = await startTestServer({ env: ENV })
    let b: TestServer | undefined
    try {
      const req = await createRequest(a, { maxUploads: 1 })
      const data = randomBytes(30)
      const uid = await initOk(a, req, data.length)
      expect((await chunk(a, req, uid, 0, data.subarray(0, 20))).status).toBe(200)

      b = await startTestServer({ env: ENV, dataDir: a.dataDir })
      // Property: starting an instance frees no slot that a live session of another one holds.
      expect((await readRequest(b, req)).body.uploadsLeft).toBe(0)
      expect((await init(b, req, 10)).status).toBe(409)

      // Older than the sweeps' age, as a long upload's first bytes are.
      const blobs = join(a.dataDir, 'blobs')
      const sweepAge = Number(ENV.UPLOAD_SESSION_IDLE_SEC) * 1000 + PARTIAL_MARGIN_MS + HOUR
      const written =
        (await age(join(blobs, '.chunks'), sweepAge)) +
        (await age(join(blobs, '.partial'), sweepAge))
      expect(written).toBeGreaterThan(0)
      const report = await b.service.cleanup.runOnce()
      expect(report.leading).toBe(true)
      expect(report.failedSteps).toEqual([])
      // Property: the sweep by age removed nothing of the live session of the other instance.
      expect(report.partialsRemoved).toBe(0)

      expect((await chunk(a, req, uid, 1, data.subarray(20))).status).toBe(200)
      expect((await finalize(b, req, uid, finalizeBody())).status).toBe(200)
      expect((await downloadFile(a, req, uid)).bytes.equals(data)).toBe(true)
    } finally {
      await b?.close({ keepData: true })
      await a.close()
    }
  })
})
