/** The container's health probe: it finds the server by PORT and HOST and reports its state. */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

/** Runs the probe from the sources with `env`; answers its exit status and error output. */
async function probe(env: Record<string, string>): Promise<{ status: number; stderr: string }> {
  const args = ['--import', 'tsx', 'src/health-probe.ts']
  return run(process.execPath, args, {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
  })
    .then(() => ({ status: 0, stderr: '' }))
    .catch((err: { code: number; stderr: string }) => ({ status: err.code, stderr: err.stderr }))
}

describe('health-probe', () => {
  let server: TestServer
  let port: string

  beforeAll(async () => {
    server = await startTestServer()
    port = new URL(server.url).port
  })
  afterAll(() => server.close())

  it('exits 0 when the server at PORT answers healthy', async () => {
    expect(await probe({ PORT: port, HOST: '127.0.0.1' })).toEqual({ status: 0, stderr: '' })
  })

  it('exits 1 with one line when nothing answers at PORT', async () => {
    await server.service.close()
    const result = await probe({ PORT: port, HOST: '0.0.0.0' })
    expect(result.status).toBe(1)
    expect(result.stderr).toBe(
      `fileshare: http://127.0.0.1:${port}/api/health did not answer: fetch failed\n`,
    )
  })

  it('exits 1 naming the variable when the environment is not a valid configuration', async () => {
    const result = await probe({ PORT: 'eighty' })
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/^fileshare: PORT must be .*, got "eighty"\n$/)
  })
})
