/**
 * Server processes a test file spawns and the temporary folders they use: after each test every
 * process still running is killed and awaited, and every folder removed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { hasExited, spawnServer, type SpawnedServer } from '@fileshare/testing'
import { afterEach } from 'vitest'

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))

/**
 * The server run from its sources in a process of its own, with `env` and this process's HOME and
 * TMPDIR (nothing else of this environment leaks into it).
 */
export function spawnFromSource(env: Record<string, string>): Promise<SpawnedServer> {
  const full = { ...env }
  for (const name of ['HOME', 'TMPDIR']) {
    const value = process.env[name]
    if (value !== undefined) full[name] = value
  }
  return spawnServer({
    entry: 'src/index.ts',
    nodeArgs: ['--import', 'tsx'],
    cwd: SERVER_DIR,
    env: full,
  })
}

export interface SpawnedServers {
  /** Ends `server` after the test; answers it. */
  track(server: SpawnedServer): SpawnedServer
  /** A new empty folder (named after `prefix`), removed after the test. */
  dataDir(): Promise<string>
  /** spawnFromSource(env), ended after the test. */
  start(env: Record<string, string>): Promise<SpawnedServer>
}

/** Call at the top of a test file: registers the teardown. */
export function spawnedServers(prefix: string): SpawnedServers {
  const children = new Set<SpawnedServer>()
  const dirs: string[] = []
  afterEach(async () => {
    // Whatever happened in the test, no server process outlives it.
    for (const server of children) {
      if (!hasExited(server.child)) server.child.kill('SIGKILL')
      await server.exited
    }
    children.clear()
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
  })
  return {
    track(server) {
      children.add(server)
      return server
    },
    async dataDir() {
      const dir = await mkdtemp(join(tmpdir(), prefix))
      dirs.push(dir)
      return dir
    },
    async start(env) {
      const server = await spawnFromSource(env)
      children.add(server)
      return server
    },
  }
}
