/**
 * The web app's build is reproducible: the same sources and locked dependencies, built in two
 * folders of other names and depths, give the same bytes as this tree's own build (dist/), so
 * anyone can rebuild a release and compare it with its integrity manifest.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { afterAll, describe, expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../..', import.meta.url))
/** What the web app's build reads from the repository besides the installed packages. */
const SOURCES = ['package.json', 'tsconfig.base.json', 'apps/web', 'packages/protocol']

async function hashesOf(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const hashes: Record<string, string> = {}
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name)
    const name = relative(dir, path).split(sep).join('/')
    hashes[name] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex')
  }
  return hashes
}

/** Lays the sources out under `root` (installed packages linked, not copied) and builds. */
async function buildIn(root: string): Promise<string> {
  for (const source of SOURCES) {
    await cp(join(REPO, source), join(root, source), {
      recursive: true,
      verbatimSymlinks: true,
      // The copy brings the protocol package's build, which the app imports, but not the app's.
      filter: (path) => !relative(REPO, path).split(sep).join('/').startsWith('apps/web/dist'),
    })
  }
  await mkdir(join(root, 'node_modules'))
  await symlink(join(REPO, 'node_modules', '.pnpm'), join(root, 'node_modules', '.pnpm'))
  const web = join(root, 'apps', 'web')
  const vite = join(web, 'node_modules', 'vite', 'bin', 'vite.js')
  await promisify(execFile)(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: web,
    // As a developer's shell would run it: nothing of the test runner's environment.
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(VITEST|NODE_ENV$|TEST$)/.test(name)),
    ),
    maxBuffer: 16 * 1024 * 1024,
  })
  return join(web, 'dist')
}

describe('the web build', () => {
  const temps: string[] = []
  afterAll(() => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))))

  it('gives the same bytes in any folder', { timeout: 300_000 }, async () => {
    const first = await mkdtemp(join(tmpdir(), 'fileshare-build-'))
    const second = await mkdtemp(join(tmpdir(), 'another-place-'))
    temps.push(first, second)
    const a = await buildIn(join(first, 'fileshare'))
    const b = await buildIn(join(second, 'deeper', 'checkout'))
    const own = await hashesOf(fileURLToPath(new URL('./dist', import.meta.url)))
    expect(Object.keys(own)).toContain('integrity.json')
    expect(await hashesOf(a)).toEqual(own)
    expect(await hashesOf(b)).toEqual(own)
  })
})
