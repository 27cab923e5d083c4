/**
 * Statements built once with placeholders (db/client.ts `prepare`), as the chunk route runs them:
 * each run takes its own values, a run in a transaction commits or rolls back with it, and on
 * SQLite a run outside waits for an open transaction instead of joining it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Db, Executor } from '../src/db/client.js'
import { dropTestDatabases, openTestDatabase, TEST_DIALECT } from './dialects.js'

let dir: string
let db: Db

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-prepared-'))
  db = await openTestDatabase(dir)
})

afterAll(async () => {
  await db.close()
  await dropTestDatabases()
  await rm(dir, { recursive: true, force: true })
})

/** An insert of one setting and a read of one, with the executors `build` was called with. */
function statements() {
  const { settings: t } = db.tables
  const builtOn: Executor[] = []
  const insert = db.prepare((on) => {
    builtOn.push(on)
    return on
      .insert(t)
      .values({ key: sql.placeholder('key'), value: sql.placeholder('value') })
      .returning({ key: t.key })
  })
  const read = db.prepare((on) => {
    builtOn.push(on)
    return on
      .select({ value: t.value })
      .from(t)
      .where(eq(t.key, sql.placeholder('key')))
  })
  return { insert, read, builtOn }
}

const bytes = (text: string) => Buffer.from(text)
const valueOf = async (read: ReturnType<typeof statements>['read'], key: string) => {
  const [row] = await read.run(db.query, { key })
  return row === undefined ? undefined : Buffer.from(row.value).toString()
}

describe(`prepared statements on ${TEST_DIALECT}`, () => {
  it('runs with the values of each run, outside a transaction and in one', async () => {
    const { insert, read } = statements()
    expect(await insert.run(db.query, { key: 'p-a', value: bytes('one') })).toEqual([
      { key: 'p-a' },
    ])
    await insert.run(db.query, { key: 'p-b', value: bytes('two') })
    await db.transaction(async (tx) => {
      await insert.run(tx, { key: 'p-c', value: bytes('three') })
      const [row] = await read.run(tx, { key: 'p-c' })
      expect(Buffer.from(row!.value).toString()).toBe('three')
    })
    expect(await valueOf(read, 'p-a')).toBe('one')
    expect(await valueOf(read, 'p-b')).toBe('two')
    expect(await valueOf(read, 'p-c')).toBe('three')
    expect(await valueOf(read, 'p-none')).toBeUndefined()
  })

  it('rolls a run in a transaction back with it, in every transaction it runs in', async () => {
    const { insert, read } = statements()
    for (const key of ['p-rolled-1', 'p-rolled-2']) {
      const failed = db.transaction(async (tx) => {
        await insert.run(tx, { key, value: bytes(key) })
        throw new Error('rolled back')
      })
      await expect(failed).rejects.toThrow('rolled back')
      expect(await valueOf(read, key)).toBeUndefined()
    }
  })

  it('keeps a run outside out of a transaction open at the time', async () => {
    const { insert, read } = statements()
    let entered!: () => void
    const inside = new Promise<void>((resolve) => (entered = resolve))
    const failing = db.transaction(async (tx) => {
      await insert.run(tx, { key: 'p-inside', value: bytes('in') })
      entered()
      // Gives the run outside its turn while this transaction is open.
      await new Promise((resolve) => setTimeout(resolve, 50))
      await read.run(tx, { key: 'p-inside' })
      throw new Error('rolled back')
    })
    await inside
    const outside = insert.run(db.query, { key: 'p-outside', value: bytes('out') })
    const [tx, write] = await Promise.allSettled([failing, outside])
    expect(tx.status).toBe('rejected')
    expect(write.status).toBe('fulfilled')
    expect(await valueOf(read, 'p-outside')).toBe('out')
    expect(await valueOf(read, 'p-inside')).toBeUndefined()
  })

  it.runIf(TEST_DIALECT === 'sqlite')(
    'builds each statement once per executor on SQLite, however often it runs',
    async () => {
      const { insert, read, builtOn } = statements()
      for (let i = 0; i < 3; i++) {
        await insert.run(db.query, { key: `p-once-${i}`, value: bytes('x') })
        await db.transaction((tx) => read.run(tx, { key: `p-once-${i}` }))
        await valueOf(read, `p-once-${i}`)
      }
      // The insert on the database; the read in transactions and on the database.
      expect(builtOn.length).toBe(3)
      expect(new Set(builtOn).size).toBe(2)
    },
  )
})
