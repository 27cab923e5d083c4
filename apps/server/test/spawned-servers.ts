/**
 * Server processes a test file spawns and the temporary folders they use: after each test every
 * process still running is killed and awaited, and every folder removed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { hasExited, type SpawnedServer } from '@fileshare/testing'
import { afterEach } from 'vitest'

export interface SpawnedServers {
  /** Ends `server` after the test; answers it. */
  track(server: SpawnedServer): SpawnedServer
  /** A new empty folder (named after `prefix`), removed after the test. */
  dataDir(): Promise<string>
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
  }
}
