/**
 * The single executable (scripts/build-sea.ts), copied alone into an empty folder and run with
 * that folder as the whole PATH, so no Node can be found: it reports its version, then sends a
 * file over the WebSocket and another over chunked HTTP, and gets both back, extracts a folder,
 * lists and picks entries of an archive in place, and draws its progress bar (a module it
 * carries inside) on a terminal.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB, sha256File, writeRandomFile } from './files.js'
import { roundTripsBothWays } from './round-trip.js'
import { startTestServer, type TestServer } from './server.js'

const run = promisify(execFile)
const packageRoot = new URL('..', import.meta.url).pathname
const supported = process.platform === 'linux' && process.arch === 'x64'

let server: TestServer
let work: string
let alone: string
let user: CliUser

beforeAll(async () => {
  if (!supported && process.env.CI !== 'true') return
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-sea-'))
  alone = join(work, 'bin')
  await mkdir(alone)
  await run(process.execPath, ['--import', 'tsx', 'scripts/build-sea.ts'], { cwd: packageRoot })
  await copyFile(join(packageRoot, 'dist-sea', 'fileshare'), join(alone, 'fileshare'))
  server = await startTestServer()
  user = await CliUser.create(server.url)
})

afterAll(async () => {
  await server?.close()
  if (work !== undefined) await rm(work, { recursive: true, force: true })
  if (user !== undefined) await rm(user.home, { recursive: true, force: true })
})

describe.skipIf(!supported && process.env.CI !== 'true')('the single executable', () => {
  const options = () => ({ command: [join(alone, 'fileshare')], env: { PATH: alone } })

  it('runs alone, with no Node on PATH', async () => {
    expect(await readdir(alone)).toEqual(['fileshare'])
    await expect(run('node', ['--version'], { env: { PATH: alone } })).rejects.toThrow(/ENOENT/)
    const version = await user.ok(['--version'], options())
    const { version: expected } = (await import('../package.json', { with: { type: 'json' } }))
      .default
    expect(version.stdout.trim()).toBe(expected)
  })

  it('sends and gets a file over the WebSocket and over chunked HTTP', async () => {
    const stderr = await roundTripsBothWays(user, work, {
      webSocketSize: 3 * MiB,
      chunkedSize: 3 * MiB,
      options: options(),
    })
    // Nothing it lacks is looked for on disk (Node warns on such a require).
    expect(stderr).not.toMatch(/warning/i)
  })

  it('extracts a folder, and lists and picks entries of an archive in place', async () => {
    const folder = join(work, 'tree')
    await mkdir(join(folder, 'sub'), { recursive: true })
    await writeFile(join(folder, 'note.txt'), 'a note\n')
    await writeRandomFile(join(folder, 'sub', 'data.bin'), 2 * MiB)
    const { link } = await user.json<{ link: string }>(
      ['send', folder, '--downloads', '3'],
      options(),
    )
    const whole = join(work, 'whole')
    await user.ok(['get', link, '-o', whole], options())
    expect(await sha256File(join(whole, 'tree', 'sub', 'data.bin'))).toBe(
      await sha256File(join(folder, 'sub', 'data.bin')),
    )
    const listed = await user.json<{ entries: Array<{ name: string }> }>(
      ['get', link, '--list'],
      options(),
    )
    expect(listed.entries.map((e) => e.name)).toContain('tree/sub/data.bin')
    const picked = join(work, 'picked')
    await user.ok(['get', link, '-o', picked, '--only', 'tree/note.txt'], options())
    expect(await readFile(join(picked, 'tree', 'note.txt'), 'utf8')).toBe('a note\n')
    expect(await readdir(join(picked, 'tree'))).toEqual(['note.txt'])
  })

  it('draws its progress bar on a terminal', async () => {
    await writeRandomFile(join(work, 'bar.bin'), 8 * MiB)
    // util-linux `script` runs the command on a pseudo-terminal, as a user's shell would.
    const script = (await run('sh', ['-c', 'command -v script'])).stdout.trim()
    const { stdout } = await run(
      script,
      ['-qec', `${join(alone, 'fileshare')} send ${join(work, 'bar.bin')}`, '/dev/null'],
      {
        env: {
          PATH: alone,
          SHELL: '/bin/sh',
          HOME: user.home,
          XDG_CONFIG_HOME: join(user.home, '.config'),
          FILESHARE_SERVER: server.url,
        },
      },
    )
    expect(stdout).toMatch(/Uploading .* 100% \| 8 MiB \/ 8 MiB/)
    expect(stdout).toContain(`${server.url}/d/`)
  })
})
