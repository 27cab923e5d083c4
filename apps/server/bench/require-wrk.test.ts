import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { WRK_MISSING, wrkMissing } from './require-wrk.js'

const BENCH = fileURLToPath(new URL('server-bench.ts', import.meta.url))

describe('the wrk check of bench:server', () => {
  let empty: string
  beforeAll(async () => {
    empty = await mkdtemp(join(tmpdir(), 'fileshare-no-wrk-'))
  })
  afterAll(() => rm(empty, { recursive: true, force: true }))

  it('names the Debian package when wrk is not on the PATH', async () => {
    expect(await wrkMissing({ ...process.env, PATH: empty })).toBe(WRK_MISSING)
  })

  it('answers null when a wrk starts, whatever its exit code', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fileshare-fake-wrk-'))
    try {
      await writeFile(join(dir, 'wrk'), '#!/bin/sh\nexit 1\n', { mode: 0o755 })
      expect(await wrkMissing({ ...process.env, PATH: dir })).toBeNull()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('makes the benchmark print that one line and exit 1, with no stack trace', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', BENCH], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, PATH: empty },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (data: Buffer) => (stdout += String(data)))
    child.stderr.on('data', (data: Buffer) => (stderr += String(data)))
    const [code] = (await once(child, 'exit')) as [number | null]
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(`${WRK_MISSING}\n`)
  }, 60_000)
})
