import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { eq, type SQL } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'

import { decrement, decrementToZero, increment } from './expressions.js'
import { openSqlite } from './sqlite.js'

const dir = mkdtempSync(join(tmpdir(), 'fileshare-expressions-'))
const db = await openSqlite(dir)
const { blobDeletions } = db.tables
afterAll(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Sets the `attempts` of a fresh row to `start`, applies `change` and reads the result. */
async function apply(start: number, change: SQL): Promise<number> {
  const key = `k${Math.random()}`
  await db.query.insert(blobDeletions).values({ key, attempts: start, queuedAt: 0 })
  const [row] = await db.query
    .update(blobDeletions)
    .set({ attempts: change })
    .where(eq(blobDeletions.key, key))
    .returning({ attempts: blobDeletions.attempts })
  return row!.attempts
}

describe('column arithmetic', () => {
  it('adds and subtracts', async () => {
    expect(await apply(4, increment(blobDeletions.attempts))).toBe(5)
    expect(await apply(4, increment(blobDeletions.attempts, 10))).toBe(14)
    expect(await apply(4, decrement(blobDeletions.attempts))).toBe(3)
  })

  it('never takes a counter below zero', async () => {
    const attempts = blobDeletions.attempts
    expect(await apply(5, decrementToZero(attempts))).toBe(4)
    expect(await apply(1, decrementToZero(attempts))).toBe(0)
    expect(await apply(0, decrementToZero(attempts))).toBe(0)
    expect(await apply(5, decrementToZero(attempts, 3))).toBe(2)
    expect(await apply(2, decrementToZero(attempts, 3))).toBe(0)
  })
})
