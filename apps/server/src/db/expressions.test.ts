import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { eq, type SQL } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'

import { openDatabase } from './client.js'
import { decrement, decrementToZero, increment } from './expressions.js'
import { blobDeletions } from './schema.js'

const dir = mkdtempSync(join(tmpdir(), 'fileshare-expressions-'))
const db = openDatabase(dir)
afterAll(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Sets the `attempts` of a fresh row to `start`, applies `change` and reads the result. */
function apply(start: number, change: SQL): number {
  const key = `k${Math.random()}`
  db.insert(blobDeletions).values({ key, attempts: start, queuedAt: 0 }).run()
  return db
    .update(blobDeletions)
    .set({ attempts: change })
    .where(eq(blobDeletions.key, key))
    .returning({ attempts: blobDeletions.attempts })
    .get()!.attempts
}

describe('column arithmetic', () => {
  it('adds and subtracts', () => {
    expect(apply(4, increment(blobDeletions.attempts))).toBe(5)
    expect(apply(4, increment(blobDeletions.attempts, 10))).toBe(14)
    expect(apply(4, decrement(blobDeletions.attempts))).toBe(3)
  })

  it('never takes a counter below zero', () => {
    const attempts = blobDeletions.attempts
    expect(apply(5, decrementToZero(attempts))).toBe(4)
    expect(apply(1, decrementToZero(attempts))).toBe(0)
    expect(apply(0, decrementToZero(attempts))).toBe(0)
    expect(apply(5, decrementToZero(attempts, 3))).toBe(2)
    expect(apply(2, decrementToZero(attempts, 3))).toBe(0)
  })
})
