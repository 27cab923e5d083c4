import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { openSqlite, type SqliteDb } from '../db/sqlite.js'
import { DbLockout, MemoryLockout, tokenUnderLockout, type Lockout } from './lockout.js'
import { DailyIpHash } from './quota.js'
import { httpErrorOfAsync } from '../../test/http-error-of.js'

const IP = '203.0.113.7'
const OTHER_IP = '198.51.100.2'
const LOCKOUT_MS = 60_000

interface Setup {
  clock: { now: number }
  lockout: Lockout
}

let dir: string
let db: SqliteDb
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fileshare-lockout-'))
  db = await openSqlite(dir)
})
afterEach(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

function memorySetup(options: { maxAttempts?: number; maxEntries?: number } = {}) {
  const clock = { now: Date.UTC(2024, 2, 10, 12) }
  const lockout = new MemoryLockout({
    maxAttempts: options.maxAttempts ?? 3,
    lockoutMs: LOCKOUT_MS,
    now: () => clock.now,
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
  })
  return { clock, lockout }
}

async function dbSetup(maxAttempts = 3): Promise<Setup & { lockout: DbLockout }> {
  const clock = { now: Date.UTC(2024, 2, 10, 12) }
  const lockout = new DbLockout({
    db,
    ipHash: await DailyIpHash.load(db),
    maxAttempts,
    lockoutMs: LOCKOUT_MS,
    now: () => clock.now,
  })
  return { clock, lockout }
}

async function failTimes(lockout: Lockout, times: number, key = 'note:a', ip = IP) {
  for (let i = 0; i < times; i++) await lockout.admit(key, ip)
}

const isOpen = async (lockout: Lockout, key = 'note:a', ip = IP) => {
  try {
    await lockout.assertOpen(key, ip)
    return true
  } catch {
    return false
  }
}

describe.each([
  ['MemoryLockout', (maxAttempts = 3) => Promise.resolve(memorySetup({ maxAttempts }))],
  ['DbLockout', (maxAttempts?: number) => dbSetup(maxAttempts)],
])('%s', (_name, setup: (maxAttempts?: number) => Promise<Setup>) => {
  it('stays open below the attempt limit', async () => {
    const { lockout } = await setup()
    await failTimes(lockout, 2)
    expect(await isOpen(lockout)).toBe(true)
  })

  it('locks after maxAttempts failures with 429, the message and Retry-After in seconds', async () => {
    const { clock, lockout } = await setup()
    await failTimes(lockout, 3)
    clock.now += 1_500
    for (const step of [
      () => lockout.assertOpen('note:a', IP),
      () => lockout.admit('note:a', IP),
    ]) {
      const err = await httpErrorOfAsync(async () => step())
      expect(err.status).toBe(429)
      expect(err.message).toBe(ERROR_MESSAGES.tooManyAttempts)
      expect(err.headers).toEqual({ 'Retry-After': '59' })
    }
    expect(await isOpen(lockout, 'note:a', OTHER_IP)).toBe(true)
    expect(await isOpen(lockout, 'note:b', IP)).toBe(true)
  })

  it('rounds Retry-After up to whole seconds while the lock runs down', async () => {
    const { clock, lockout } = await setup()
    await failTimes(lockout, 3)
    clock.now += 58_500
    const retryAfter = async () =>
      (await httpErrorOfAsync(async () => lockout.assertOpen('note:a', IP))).headers['Retry-After']
    expect(await retryAfter()).toBe('2')
    clock.now += 1_499
    expect(await retryAfter()).toBe('1')
  })

  it('keeps the end of a running lock on refused attempts', async () => {
    const { clock, lockout } = await setup()
    await failTimes(lockout, 3)
    clock.now += 30_000
    await httpErrorOfAsync(async () => lockout.admit('note:a', IP))
    clock.now += 30_000
    expect(await isOpen(lockout)).toBe(true)
    // A fresh count once the lock has run out.
    await failTimes(lockout, 2)
    expect(await isOpen(lockout)).toBe(true)
    await failTimes(lockout, 1)
    expect(await isOpen(lockout)).toBe(false)
  })

  it('forgets failures older than the lockout duration', async () => {
    const { clock, lockout } = await setup()
    await failTimes(lockout, 2)
    clock.now += LOCKOUT_MS
    await failTimes(lockout, 2)
    expect(await isOpen(lockout)).toBe(true)
  })

  it('clears the failures when a right attempt is given back', async () => {
    const { lockout } = await setup()
    await failTimes(lockout, 2)
    await lockout.succeed('note:a', IP, await lockout.admit('note:a', IP))
    await failTimes(lockout, 2)
    expect(await isOpen(lockout)).toBe(true)
  })

  it('lifts the lock that a right attempt set', async () => {
    const { lockout } = await setup()
    await failTimes(lockout, 2)
    const ticket = await lockout.admit('note:a', IP)
    expect(await isOpen(lockout)).toBe(false)
    await lockout.succeed('note:a', IP, ticket)
    expect(await isOpen(lockout)).toBe(true)
  })

  // Security: a right token among concurrent guesses spends its attempt, so the guesses admitted
  // after it cannot be followed by more.
  it('gives nothing back for a right attempt when others came after it', async () => {
    const { lockout } = await setup()
    const ticket = await lockout.admit('note:a', IP)
    await failTimes(lockout, 2)
    await lockout.succeed('note:a', IP, ticket)
    expect(await isOpen(lockout)).toBe(false)
  })

  // Security: the right token that set the lock in a burst cannot lift it once others were refused.
  it('keeps the lock a right attempt set when others were refused after it', async () => {
    const { lockout } = await setup()
    await failTimes(lockout, 2)
    const ticket = await lockout.admit('note:a', IP)
    await httpErrorOfAsync(async () => lockout.admit('note:a', IP))
    await lockout.succeed('note:a', IP, ticket)
    expect(await isOpen(lockout)).toBe(false)
  })

  // Security: admission and count are one step, so concurrent attempts pass the limit nowhere.
  it('admits exactly maxAttempts of 20 attempts made at once', async () => {
    const { lockout } = await setup()
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, async () => lockout.admit('note:a', IP)),
    )
    const admitted = attempts.filter((attempt) => attempt.status === 'fulfilled')
    expect(admitted.map((attempt) => attempt.value.failures).sort()).toEqual([1, 2, 3])
  })
})

describe('MemoryLockout', () => {
  it('drops stale entries so memory does not grow with old failures', async () => {
    const { clock, lockout } = memorySetup()
    for (let i = 0; i < 50; i++) lockout.admit(`note:${i}`, IP)
    expect(lockout.size).toBe(50)
    clock.now += LOCKOUT_MS
    lockout.admit('note:new', IP)
    expect(lockout.size).toBe(1)
  })

  it('caps the number of entries by forgetting the least recently failed pair', async () => {
    const { lockout } = memorySetup({ maxAttempts: 1, maxEntries: 3 })
    for (const key of ['a', 'b', 'c', 'd']) lockout.admit(key, IP)
    expect(lockout.size).toBe(3)
    expect(await isOpen(lockout, 'a')).toBe(true)
    for (const key of ['b', 'c', 'd']) expect(await isOpen(lockout, key)).toBe(false)
  })
})

describe('DbLockout', () => {
  it('keeps a lock set late the day before, under that day’s hash', async () => {
    const { clock, lockout } = await dbSetup()
    clock.now = Date.UTC(2024, 2, 10, 23, 59, 30)
    await failTimes(lockout, 3)
    clock.now = Date.UTC(2024, 2, 11, 0, 0, 10)
    expect(await isOpen(lockout)).toBe(false)
    expect((await httpErrorOfAsync(async () => lockout.admit('note:a', IP))).status).toBe(429)
    clock.now = Date.UTC(2024, 2, 11, 0, 0, 30)
    expect(await isOpen(lockout)).toBe(true)
  })

  // A right token admitted just before midnight UTC is confirmed just after: it still gives back
  // the attempt counted under the day it was admitted, and the lock that attempt set.
  it('gives a right attempt back when the day changes between admitting and confirming it', async () => {
    const { clock, lockout } = await dbSetup()
    clock.now = Date.UTC(2024, 2, 10, 23, 59, 59)
    await failTimes(lockout, 2)
    const ticket = await lockout.admit('note:a', IP)
    clock.now = Date.UTC(2024, 2, 11, 0, 0, 1)
    expect(await isOpen(lockout)).toBe(false)
    await lockout.succeed('note:a', IP, ticket)
    expect(await isOpen(lockout)).toBe(true)
    expect(await db.query.select().from(db.tables.lockouts)).toHaveLength(0)
  })

  // Privacy: the table holds no IP in clear, only a keyed hash of the key and the IP.
  it('stores the pair as a hash and prunes the entries that stopped mattering', async () => {
    const { clock, lockout } = await dbSetup()
    await lockout.admit('note:a', IP)
    clock.now += 30_000
    await lockout.admit('note:b', OTHER_IP)
    const rows = await db.query.select().from(db.tables.lockouts)
    expect(rows).toHaveLength(2)
    expect(JSON.stringify(rows)).not.toMatch(/203\.0\.113|198\.51\.100|note:/)
    clock.now += 30_000
    expect(await lockout.prune()).toBe(1)
    expect(await db.query.select().from(db.tables.lockouts)).toHaveLength(1)
  })
})

describe('tokenUnderLockout', () => {
  const wrong = { matches: false, wellFormed: true }
  const malformed = { matches: false, wellFormed: false }
  const right = { matches: true, wellFormed: true }
  const guard = { key: 'upload:a', clientIp: IP, hasPassword: true }

  it('counts well-formed wrong tokens on a protected item, then locks even the right one', async () => {
    const { lockout } = memorySetup()
    for (let i = 0; i < 5; i++)
      expect(await tokenUnderLockout(lockout, guard, malformed)).toBe(false)
    for (let i = 0; i < 3; i++) expect(await tokenUnderLockout(lockout, guard, wrong)).toBe(false)
    for (const token of [right, malformed]) {
      const err = await httpErrorOfAsync(() => tokenUnderLockout(lockout, guard, token))
      expect(err.status).toBe(429)
    }
  })

  it('clears the failures on a right token', async () => {
    const { lockout } = memorySetup()
    await tokenUnderLockout(lockout, guard, wrong)
    await tokenUnderLockout(lockout, guard, wrong)
    expect(await tokenUnderLockout(lockout, guard, right)).toBe(true)
    await tokenUnderLockout(lockout, guard, wrong)
    await tokenUnderLockout(lockout, guard, wrong)
    expect(await tokenUnderLockout(lockout, guard, right)).toBe(true)
  })

  it('never locks an item without a password', async () => {
    const { lockout } = memorySetup()
    const open = { ...guard, hasPassword: false }
    for (let i = 0; i < 5; i++) expect(await tokenUnderLockout(lockout, open, wrong)).toBe(false)
    expect(await tokenUnderLockout(lockout, open, right)).toBe(true)
  })
})
