import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { openSqlite, type SqliteDb } from '../../db/sqlite.js'
import { HttpError } from '../../http-error.js'
import { DbLockout, MemoryLockout, tokenUnderLockout, type Lockout } from './lockout.js'
import { DailyIpHash } from './quota.js'
import { httpErrorOf, httpErrorOfAsync } from '../../../test/http-error-of.js'

const IP = '203.0.113.7'
const OTHER_IP = '198.51.100.2'

function setup(options: { maxAttempts?: number; lockoutMs?: number; maxEntries?: number } = {}) {
  const clock = { now: 1_000_000 }
  const lockout = new MemoryLockout({
    maxAttempts: options.maxAttempts ?? 3,
    lockoutMs: options.lockoutMs ?? 60_000,
    now: () => clock.now,
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
  })
  return { clock, lockout }
}

function failTimes(lockout: MemoryLockout, times: number, key = 'note:a', ip = IP): void {
  for (let i = 0; i < times; i++) lockout.fail(key, ip)
}

describe('MemoryLockout', () => {
  it('stays open below the attempt limit', () => {
    const { lockout } = setup()
    failTimes(lockout, 2)
    expect(() => lockout.assertOpen('note:a', IP)).not.toThrow()
  })

  it('locks after maxAttempts failures with 429, the message and Retry-After in seconds', () => {
    const { lockout } = setup()
    failTimes(lockout, 3)
    const err = httpErrorOf(() => lockout.assertOpen('note:a', IP))
    expect(err.status).toBe(429)
    expect(err.message).toBe(ERROR_MESSAGES.tooManyAttempts)
    expect(err.headers).toEqual({ 'Retry-After': '60' })
  })

  it('rounds Retry-After up to whole seconds while the lock runs down', () => {
    const { clock, lockout } = setup()
    failTimes(lockout, 3)
    clock.now += 58_500
    expect(httpErrorOf(() => lockout.assertOpen('note:a', IP)).headers['Retry-After']).toBe('2')
    clock.now += 1_499
    expect(httpErrorOf(() => lockout.assertOpen('note:a', IP)).headers['Retry-After']).toBe('1')
  })

  it('opens again when the lock has run out, with a fresh count of attempts', () => {
    const { clock, lockout } = setup()
    failTimes(lockout, 3)
    clock.now += 60_000
    expect(() => lockout.assertOpen('note:a', IP)).not.toThrow()
    failTimes(lockout, 2)
    expect(() => lockout.assertOpen('note:a', IP)).not.toThrow()
    lockout.fail('note:a', IP)
    expect(() => lockout.assertOpen('note:a', IP)).toThrow(HttpError)
  })

  it('locks only the failing (key, IP) pair', () => {
    const { lockout } = setup()
    failTimes(lockout, 3)
    expect(() => lockout.assertOpen('note:a', OTHER_IP)).not.toThrow()
    expect(() => lockout.assertOpen('note:b', IP)).not.toThrow()
  })

  it('clears the failures on success', () => {
    const { lockout } = setup()
    failTimes(lockout, 2)
    lockout.succeed('note:a', IP)
    failTimes(lockout, 2)
    expect(() => lockout.assertOpen('note:a', IP)).not.toThrow()
  })

  it('forgets failures older than the lockout duration', () => {
    const { clock, lockout } = setup()
    failTimes(lockout, 2)
    clock.now += 60_000
    lockout.fail('note:a', IP)
    expect(() => lockout.assertOpen('note:a', IP)).not.toThrow()
  })

  it('does not extend a running lock on further failures', () => {
    const { clock, lockout } = setup()
    failTimes(lockout, 3)
    clock.now += 30_000
    lockout.fail('note:a', IP)
    clock.now += 30_000
    expect(() => lockout.assertOpen('note:a', IP)).not.toThrow()
  })

  it('drops stale entries so memory does not grow with old failures', () => {
    const { clock, lockout } = setup()
    for (let i = 0; i < 50; i++) lockout.fail(`note:${i}`, IP)
    expect(lockout.size).toBe(50)
    clock.now += 60_000
    lockout.fail('note:new', IP)
    expect(lockout.size).toBe(1)
  })

  it('caps the number of entries by forgetting the least recently failed pair', () => {
    const { lockout } = setup({ maxAttempts: 1, maxEntries: 3 })
    for (const key of ['a', 'b', 'c', 'd']) lockout.fail(key, IP)
    expect(lockout.size).toBe(3)
    expect(() => lockout.assertOpen('a', IP)).not.toThrow()
    for (const key of ['b', 'c', 'd']) expect(() => lockout.assertOpen(key, IP)).toThrow(HttpError)
  })
})

describe('DbLockout', () => {
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

  async function dbSetup(maxAttempts = 3) {
    const clock = { now: Date.UTC(2024, 2, 10, 12) }
    const lockout = new DbLockout({
      db,
      ipHash: await DailyIpHash.load(db),
      maxAttempts,
      lockoutMs: 60_000,
      now: () => clock.now,
    })
    return { clock, lockout }
  }

  it('locks after maxAttempts failures with 429 and Retry-After, for that pair only', async () => {
    const { clock, lockout } = await dbSetup()
    for (let i = 0; i < 2; i++) expect(await lockout.fail('note:a', IP)).toBe(true)
    await lockout.assertOpen('note:a', IP)
    expect(await lockout.fail('note:a', IP)).toBe(true)
    clock.now += 1_500
    const err = await httpErrorOfAsync(() => lockout.assertOpen('note:a', IP))
    expect(err.status).toBe(429)
    expect(err.message).toBe(ERROR_MESSAGES.tooManyAttempts)
    expect(err.headers).toEqual({ 'Retry-After': '59' })
    await lockout.assertOpen('note:a', OTHER_IP)
    await lockout.assertOpen('note:b', IP)
  })

  it('counts nothing and keeps the end of a running lock on further failures', async () => {
    const { clock, lockout } = await dbSetup()
    for (let i = 0; i < 3; i++) await lockout.fail('note:a', IP)
    clock.now += 30_000
    expect(await lockout.fail('note:a', IP)).toBe(false)
    const err = await httpErrorOfAsync(() => lockout.assertOpen('note:a', IP))
    expect(err.headers).toEqual({ 'Retry-After': '30' })
    clock.now += 30_000
    await lockout.assertOpen('note:a', IP)
    // A fresh count once the lock has run out.
    for (let i = 0; i < 2; i++) await lockout.fail('note:a', IP)
    await lockout.assertOpen('note:a', IP)
  })

  it('forgets failures older than the lockout duration, and clears them on success', async () => {
    const { clock, lockout } = await dbSetup()
    for (let i = 0; i < 2; i++) await lockout.fail('note:a', IP)
    clock.now += 60_000
    await lockout.fail('note:a', IP)
    await lockout.assertOpen('note:a', IP)
    await lockout.fail('note:a', IP)
    await lockout.succeed('note:a', IP)
    await lockout.fail('note:a', IP)
    await lockout.assertOpen('note:a', IP)
  })

  // Privacy: the table holds no IP in clear, only a keyed hash of the key and the IP.
  it('stores the pair as a hash and prunes the entries that stopped mattering', async () => {
    const { clock, lockout } = await dbSetup()
    await lockout.fail('note:a', IP)
    clock.now += 30_000
    await lockout.fail('note:b', OTHER_IP)
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
    const { lockout } = setup()
    expect(await tokenUnderLockout(lockout, guard, malformed)).toBe(false)
    for (let i = 0; i < 3; i++) expect(await tokenUnderLockout(lockout, guard, wrong)).toBe(false)
    expect((await httpErrorOfAsync(() => tokenUnderLockout(lockout, guard, right))).status).toBe(
      429,
    )
  })

  // Property: a wrong guess that passed the check while another one reached the limit is not
  // answered as wrong, so parallel guesses get no more answers than the limit.
  it('answers 429 to a wrong token whose failure came after the lock', async () => {
    const { lockout } = setup()
    // The other guesses reach the limit between this guess's check and its failure.
    let checks = 0
    const raced: Lockout = {
      assertOpen: (key, ip) => {
        if (checks++ === 0) failTimes(lockout, 3, key, ip)
        else lockout.assertOpen(key, ip)
      },
      fail: (key, ip) => lockout.fail(key, ip),
      succeed: (key, ip) => lockout.succeed(key, ip),
      prune: () => lockout.prune(),
    }
    expect((await httpErrorOfAsync(() => tokenUnderLockout(raced, guard, wrong))).status).toBe(429)
  })

  it('clears the failures on a right token', async () => {
    const { lockout } = setup()
    await tokenUnderLockout(lockout, guard, wrong)
    await tokenUnderLockout(lockout, guard, wrong)
    expect(await tokenUnderLockout(lockout, guard, right)).toBe(true)
    await tokenUnderLockout(lockout, guard, wrong)
    await tokenUnderLockout(lockout, guard, wrong)
    expect(await tokenUnderLockout(lockout, guard, right)).toBe(true)
  })

  it('never locks an item without a password', async () => {
    const { lockout } = setup()
    const open = { ...guard, hasPassword: false }
    for (let i = 0; i < 5; i++) expect(await tokenUnderLockout(lockout, open, wrong)).toBe(false)
    expect(await tokenUnderLockout(lockout, open, right)).toBe(true)
  })
})
