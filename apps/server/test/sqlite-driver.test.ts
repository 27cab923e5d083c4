/**
 * The server's start-up line names the SQLite driver it runs on, and SQLITE_DRIVER=node on a Node
 * without node:sqlite stops the server, and fileshare-admin, with one line instead of a stack.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { runAdmin } from '../src/admin/program.js'
import { spawnedServers } from './spawned-servers.js'

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
const HAS_NODE_SQLITE = major > 22 || (major === 22 && minor >= 16)

const spawned = spawnedServers('fileshare-driver-')

async function env(extra: Record<string, string>): Promise<Record<string, string>> {
  return { HOST: '127.0.0.1', LOG_LEVEL: 'error', DATA_DIR: await spawned.dataDir(), ...extra }
}

describe(`the SQLite driver on Node ${process.version}`, { timeout: 60_000 }, () => {
  it('is named in the start-up line, and the server answers on it', async () => {
    const server = await spawned.start(await env({}))
    const driver = HAS_NODE_SQLITE ? 'node:sqlite' : 'better-sqlite3'
    expect(server.output()).toContain(`(SQLite on ${driver}, data in `)
    const health = await fetch(`${server.url}/api/health`)
    expect(health.status).toBe(200)
  })

  it.runIf(HAS_NODE_SQLITE)('SQLITE_DRIVER=node runs node:sqlite', async () => {
    const server = await spawned.start(await env({ SQLITE_DRIVER: 'node' }))
    expect(server.output()).toContain('(SQLite on node:sqlite, data in ')
  })

  it.skipIf(HAS_NODE_SQLITE)('SQLITE_DRIVER=node stops a Node without node:sqlite', async () => {
    const start = spawned.start(await env({ SQLITE_DRIVER: 'node' }))
    await expect(start).rejects.toThrow(
      `exited (1) before it listened:\nfileshare: SQLITE_DRIVER=node needs node:sqlite, ` +
        `which Node ${process.version} lacks`,
    )
  })

  it.skipIf(HAS_NODE_SQLITE)('SQLITE_DRIVER=node stops fileshare-admin in one line', async () => {
    const dataDir = await spawned.dataDir()
    await writeFile(join(dataDir, 'fileshare.db'), '')
    let stderr = ''
    const code = await runAdmin(['stats'], {
      env: { DATA_DIR: dataDir, SQLITE_DRIVER: 'node' },
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
    })
    expect([code, stderr]).toEqual([
      3,
      `fileshare-admin: SQLITE_DRIVER=node needs node:sqlite, which Node ${process.version} ` +
        'lacks (Node 22.16 and newer have it): set SQLITE_DRIVER=auto or better-sqlite3\n',
    ])
  })
})
