import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, it, vi } from 'vitest'

import { startCheckpointer } from './checkpointer.js'
import { openSqlite, type SqliteDb } from './sqlite.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function insertRows(db: SqliteDb, count: number): void {
  const insert = db.connection.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  for (let i = 0; i < count; i++) insert.run([`row-${i}`, Buffer.alloc(1024, i)])
}

describe('WAL checkpointer', () => {
  it('moves committed pages from the WAL into the database file off the main thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fileshare-ckpt-'))
    dirs.push(dir)
    const db = await openSqlite(dir)
    const file = join(dir, 'fileshare.db')
    const checkpointer = startCheckpointer(db.connection, (message) => {
      throw new Error(message)
    })
    // Automatic checkpoints are off on this connection, so only the worker can grow the file.
    expect(db.connection.prepare('PRAGMA wal_autocheckpoint').get([])).toEqual([0])
    const before = statSync(file).size
    insertRows(db, 2000)
    // A checkpoint may land in several steps: wait for the whole of the rows, not the first growth.
    await vi.waitFor(() => expect(statSync(file).size).toBeGreaterThan(before + 1000 * 1024), {
      timeout: 30_000,
      interval: 50,
    })
    await checkpointer.stop()
    expect(statSync(`${file}-wal`).size).toBe(0)
    db.connection.close()
  })
})
