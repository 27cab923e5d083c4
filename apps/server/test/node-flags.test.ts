/**
 * The V8 flags the server is best started with: which ones a process lacks, the start scripts
 * that pass them, and the line a server started without them prints.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, describe, expect, it } from 'vitest'

import { missingNodeFlags, NODE_FLAGS } from '../src/node-flags.js'

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))
const dirs: string[] = []

afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

/** Starts the server from its sources with `flags`; resolves with its output once it listens. */
async function startupOutput(flags: string[]): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-flags-'))
  dirs.push(dataDir)
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', 'src/index.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  try {
    for await (const data of child.stdout) {
      output += (data as Buffer).toString()
      // The hint, when there is one, comes before the listening line.
      if (output.includes('listening on')) break
    }
    return output
  } finally {
    child.kill('SIGKILL')
    if (child.exitCode === null) await once(child, 'exit')
  }
}

describe('Node flags', () => {
  it('names the flags a process was started without', () => {
    expect(missingNodeFlags([])).toEqual([...NODE_FLAGS])
    expect(missingNodeFlags(['--import', 'tsx', ...NODE_FLAGS])).toEqual([])
    expect(missingNodeFlags([NODE_FLAGS[0]!])).toEqual(NODE_FLAGS.slice(1))
  })

  it('are passed by the start scripts of the repository and of the server package', async () => {
    for (const path of ['../../../package.json', '../package.json']) {
      const manifest = JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as {
        scripts: { start: string }
      }
      const start = manifest.scripts.start.split(' ')
      expect(missingNodeFlags(start.slice(start.lastIndexOf('node')))).toEqual([])
    }
  })

  it('a server started without them says which are missing; one started with them does not', async () => {
    const without = await startupOutput([])
    expect(without).toContain('listening on')
    for (const flag of NODE_FLAGS) expect(without).toContain(flag)
    expect(without).toContain('docs/configuration.md')

    const withFlags = await startupOutput([...NODE_FLAGS])
    expect(withFlags).toContain('listening on')
    expect(withFlags).not.toContain('Node was started without')
  })
})
