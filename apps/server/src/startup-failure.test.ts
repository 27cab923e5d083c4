/** A server that cannot start for a setting says which one, in one line (docs/configuration.md). */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { freePort } from '@fileshare/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { loadConfig } from './config.js'
import { startServer } from './server.js'
import { describeStartupFailure } from './startup-failure.js'

let work: string

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'fileshare-startup-'))
})

afterEach(async () => {
  await rm(work, { recursive: true, force: true })
})

/** Starts a real server with `env` and answers the line its failure would print. */
async function failureLine(env: Record<string, string>): Promise<string | undefined> {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env })
  const error = await startServer(config, { version: 'test' }).then(
    async (service) => {
      await service.close()
      throw new Error('the server started')
    },
    (e: unknown) => e,
  )
  return describeStartupFailure(error, config)
}

describe('describeStartupFailure', () => {
  it('names DATA_DIR when it is a file', async () => {
    const file = join(work, 'data')
    await writeFile(file, 'not a folder')
    expect(await failureLine({ DATA_DIR: file })).toMatch(
      new RegExp(`^DATA_DIR "${file}" cannot be used: EEXIST`),
    )
  })

  it('names HOST and PORT when the port is taken', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as { port: number }
    try {
      expect(await failureLine({ DATA_DIR: join(work, 'd'), PORT: String(port) })).toBe(
        `cannot listen on HOST "127.0.0.1" and PORT ${port}: EADDRINUSE`,
      )
      // What it opened before the port is closed: SQLite removes its log with its last connection.
      expect(await readdir(join(work, 'd'))).not.toContain('fileshare.db-wal')
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  it('names DATABASE_URL, without its password, when PostgreSQL cannot be reached', async () => {
    const port = await freePort()
    const line = await failureLine({
      DATA_DIR: join(work, 'd'),
      DATABASE_URL: `postgres://fileshare:s3cret@127.0.0.1:${port}/fileshare`,
    })
    expect(line).toBe(`DATABASE_URL cannot be used: connect ECONNREFUSED 127.0.0.1:${port}`)
  })

  it('leaves every other failure to be reported in full', () => {
    const config = { dataDir: join(work, 'd'), host: '127.0.0.1', port: 3000, databaseUrl: null }
    expect(describeStartupFailure(new Error('a bug'), config)).toBeUndefined()
    const elsewhere = Object.assign(new Error('no such file'), { code: 'ENOENT', path: '/etc/x' })
    expect(describeStartupFailure(elsewhere, config)).toBeUndefined()
  })
})
