/**
 * The SQLite driver the server runs on: node:sqlite where Node has it (22.16 and newer), else
 * better-sqlite3; the one SQLITE_DRIVER names; and one start-up line when it cannot be had.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { StartupFailure } from '../startup-failure.js'
import type { SqliteDriverName } from './sqlite-connection.js'
import { chooseSqliteDriver, openSqliteConnection } from './sqlite-driver.js'

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
/** The driver auto must pick on the Node running this file, from its version alone. */
const EXPECTED: SqliteDriverName =
  major > 22 || (major === 22 && minor >= 16) ? 'node:sqlite' : 'better-sqlite3'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-driver-'))
})
afterEach(async () => {
  vi.doUnmock('better-sqlite3')
  vi.doUnmock('./sqlite-node.js')
  vi.resetModules()
  await rm(dir, { recursive: true, force: true })
})

/** openSqliteConnection as a fresh import sees it, after the vi.doMock calls of the test. */
async function freshOpen(): Promise<typeof openSqliteConnection> {
  vi.resetModules()
  return (await import('./sqlite-driver.js')).openSqliteConnection
}

/**
 * better-sqlite3 as an install that cannot load it: its compiled part is loaded (and fails) when
 * the first database is opened.
 */
function unloadable(message: string, code: string): void {
  vi.doMock('better-sqlite3', () => ({
    default: class {
      constructor() {
        throw Object.assign(new Error(message), { code })
      }
    },
  }))
}

/** The message of the StartupFailure `open` rejects with. */
async function failure(open: Promise<unknown>): Promise<string> {
  const error = await open.then(
    () => new Error('the database opened'),
    (e: unknown) => e,
  )
  // A fresh import has its own StartupFailure class: compare by name.
  expect((error as Error).name).toBe(StartupFailure.name)
  return (error as Error).message
}

describe('chooseSqliteDriver', () => {
  it('auto takes node:sqlite where Node has it, else better-sqlite3', () => {
    expect(chooseSqliteDriver('auto', true)).toBe('node:sqlite')
    expect(chooseSqliteDriver('auto', false)).toBe('better-sqlite3')
  })

  it('honours a driver named outright, whatever Node has', () => {
    expect(chooseSqliteDriver('better-sqlite3', true)).toBe('better-sqlite3')
    expect(chooseSqliteDriver('node', false)).toBe('node:sqlite')
  })
})

describe('openSqliteConnection', () => {
  it(`opens ${EXPECTED} on Node ${process.version} with auto, and stores and reads a row`, async () => {
    const db = await openSqliteConnection(join(dir, 'a.db'), 'auto')
    try {
      expect(db.driver).toBe(EXPECTED)
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB, name TEXT)')
      db.prepare('INSERT INTO t VALUES (?, ?, ?)').run([7, Buffer.from('bytes'), 'seven'])
      const select = db.prepare('SELECT data, name FROM t WHERE id = ?')
      expect(select.columns()).toEqual(['data', 'name'])
      const row = select.get([7])
      expect(row).toEqual([Buffer.from('bytes'), 'seven'])
      expect(Buffer.isBuffer(row?.[0])).toBe(true)
      expect(select.get([8])).toBeUndefined()
    } finally {
      db.close()
    }
  })

  it('names the SQLite error code of a file it cannot open, whichever the driver', async () => {
    // A folder where the database file should be.
    await mkdir(join(dir, 'a.db'))
    const error = await openSqliteConnection(join(dir, 'a.db'), 'auto').then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    )
    expect(error?.code).toBe('SQLITE_CANTOPEN')
  })

  it('SQLITE_DRIVER=node on a Node without node:sqlite stops with the reason', async () => {
    vi.doMock('./sqlite-node.js', async (original) => ({
      ...(await original<object>()),
      nodeSqlite: () => undefined,
    }))
    const open = await freshOpen()
    expect(await failure(open(join(dir, 'a.db'), 'node'))).toBe(
      `SQLITE_DRIVER=node needs node:sqlite, which Node ${process.version} lacks (Node 22.16 ` +
        'and newer have it): set SQLITE_DRIVER=auto or better-sqlite3',
    )
  })

  it('SQLITE_DRIVER=better-sqlite3 that cannot be loaded stops with the reason', async () => {
    unloadable('was compiled against a different Node.js version', 'ERR_DLOPEN_FAILED')
    const open = await freshOpen()
    const line = await failure(open(join(dir, 'a.db'), 'better-sqlite3'))
    expect(line).toMatch(/^SQLITE_DRIVER=better-sqlite3, but better-sqlite3 cannot be loaded on/)
    expect(line).toContain('different Node.js version')
    expect(line).toContain('(ERR_DLOPEN_FAILED)')
  })

  it('auto without node:sqlite and without better-sqlite3 says what to install', async () => {
    vi.doMock('./sqlite-node.js', async (original) => ({
      ...(await original<object>()),
      nodeSqlite: () => undefined,
    }))
    unloadable("Cannot find package 'better-sqlite3'", 'ERR_MODULE_NOT_FOUND')
    const open = await freshOpen()
    const line = await failure(open(join(dir, 'a.db'), 'auto'))
    expect(line).toMatch(/^no SQLite driver: Node v[\d.]+ has no node:sqlite/)
    expect(line).toContain('run Node 22.16 or newer, or install better-sqlite3')
  })
})
