import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { eq } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'

import { openSqlite } from './sqlite.js'

const dir = mkdtempSync(join(tmpdir(), 'fileshare-sqlite-'))
const db = await openSqlite(dir)
const { settings } = db.tables
afterAll(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

const keys = async () =>
  (await db.query.select({ key: settings.key }).from(settings)).map((r) => r.key)

describe('transactions on the one SQLite connection', () => {
  it('a rolled-back transaction does not take a concurrent write with it', async () => {
    // Property: a statement from elsewhere never runs inside another request's open transaction.
    const failing = db.transaction(async (tx) => {
      await tx.insert(settings).values({ key: 'in-tx', value: Buffer.from('a') })
      await tx.select().from(settings).where(eq(settings.key, 'in-tx'))
      throw new Error('rolled back')
    })
    const outside = db.query.insert(settings).values({ key: 'outside', value: Buffer.from('b') })
    const [tx, write] = await Promise.allSettled([failing, outside])
    expect(tx.status).toBe('rejected')
    expect(write.status).toBe('fulfilled')
    expect(await keys()).toContain('outside')
    expect(await keys()).not.toContain('in-tx')
  })

  it('runs concurrent transactions one after the other, never nested', async () => {
    const write = (key: string) =>
      db.transaction(async (tx) => {
        await tx.insert(settings).values({ key, value: Buffer.from(key) })
        await tx.select().from(settings)
        return key
      })
    expect(await Promise.all(['t1', 't2', 't3'].map(write))).toEqual(['t1', 't2', 't3'])
    expect(await keys()).toEqual(expect.arrayContaining(['t1', 't2', 't3']))
  })
})
