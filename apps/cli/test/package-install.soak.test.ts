/**
 * The npm package as a user installs it: `pnpm pack` of this folder, installed globally into an
 * empty prefix with npm, with only the packages of the npm registry; the installed `fileshare`
 * then sends and gets a file.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB } from './files.js'
import { roundTrip } from './round-trip.js'
import { startTestServer, type TestServer } from './server.js'

const run = promisify(execFile)
const packageRoot = new URL('..', import.meta.url).pathname

interface Manifest {
  name: string
  version: string
  private?: boolean
  bin: Record<string, string>
  dependencies: Record<string, string>
}

/** A bare specifier in `from`, `import()`, `require()` or `createRequire(…)()` of a built module. */
const IMPORTED = /(?:from\s*|import\(\s*|[rR]equire\w*\((?:[^()]*\)\()?\s*)["']([^"'./][^"']*)["']/g

let server: TestServer
let work: string
let prefix: string
let tarball: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-package-'))
  prefix = join(work, 'prefix')
  // dist/ was built by the suites' global setup.
  await run('pnpm', ['pack', '--pack-destination', work], { cwd: packageRoot })
  const [name] = (await readdir(work)).filter((file) => file.endsWith('.tgz'))
  tarball = join(work, name!)
  await run(
    'npm',
    ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball],
    {
      env: { ...process.env, npm_config_loglevel: 'error' },
    },
  )
  server = await startTestServer()
})

afterAll(async () => {
  await server?.close()
  await rm(work, { recursive: true, force: true })
})

describe('the npm package', () => {
  it('is publishable and names only registry packages, the bundled ones left out', async () => {
    const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'])
    const manifest = JSON.parse(stdout) as Manifest
    expect(manifest.name).toBe('fileshare-cli')
    expect(manifest.private).toBeUndefined()
    expect(manifest.bin).toEqual({ fileshare: './dist/index.js' })
    expect(stdout).not.toContain('workspace:')
    expect(Object.keys(manifest.dependencies)).not.toContain('@fileshare/protocol')

    // Every package the built modules still import is a dependency, and nothing more.
    const imported = new Set<string>()
    for (const file of await readdir(join(packageRoot, 'dist'))) {
      if (!file.endsWith('.js')) continue
      const code = await readFile(join(packageRoot, 'dist', file), 'utf8')
      for (const [, specifier] of code.matchAll(IMPORTED)) {
        const name = specifier!.startsWith('@')
          ? specifier!.split('/').slice(0, 2).join('/')
          : specifier!.split('/')[0]!
        if (!name.startsWith('node:') && !builtinModules.includes(name)) imported.add(name)
      }
    }
    expect([...imported].sort()).toEqual(Object.keys(manifest.dependencies).sort())
  })

  it('installs with npm alone and sends and gets a file', async () => {
    const fileshare = join(prefix, 'bin', 'fileshare')
    const options = { command: [fileshare] }
    const { stdout } = await run(fileshare, ['--version'])
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8'))
    expect(stdout.trim()).toBe((manifest as Manifest).version)

    const user = await CliUser.create(server.url)
    try {
      const sent = await roundTrip(user, work, { name: 'report.bin', size: 3 * MiB, options })
      expect(sent.transport).toBe('ws')
    } finally {
      await rm(user.home, { recursive: true, force: true })
    }
  })
})
