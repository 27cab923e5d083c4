import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { openSqlite, type SqliteDb } from '../db/sqlite.js'
import { HttpError } from '../http-error.js'
import { DailyIpHash, DbUploadQuota, QUOTA_SECRET_SETTING, type QuotaHold } from './quota.js'
import { httpErrorOfAsync } from '../../test/http-error-of.js'

const DAY_SEC = 86_400
const IP = '203.0.113.7'
const OTHER_IP = '198.51.100.2'
/** 2024-03-10T12:00:00.000Z, in the middle of a daily window. */
const NOON = Date.UTC(2024, 2, 10, 12)
const MIDNIGHT_AFTER = Date.UTC(2024, 2, 11)

let dir: string
let db: SqliteDb
const clock = { now: NOON }

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fileshare-quota-'))
  db = await openSqlite(dir)
  clock.now = NOON
})

afterEach(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

async function quota(
  quotaBytes = 1000,
  windowSec = DAY_SEC,
  database = db,
): Promise<DbUploadQuota> {
  const ipHash = await DailyIpHash.load(database)
  return new DbUploadQuota({ db: database, ipHash, quotaBytes, windowSec, now: () => clock.now })
}

const settingRows = () => db.query.select().from(db.tables.settings)
const quotaRows = () => db.query.select().from(db.tables.uploadQuota)

/** Ends `hold` as the transaction ending its session does (a no-op while the quota is off). */
async function endHold(hold: QuotaHold | null, kept: boolean): Promise<void> {
  if (hold) await (await quota()).endHold(db.query, hold, kept)
}

describe('DbUploadQuota', () => {
  it('reports the full quota of a new client with the end of the window', async () => {
    expect(await (await quota()).status(IP)).toEqual({
      enabled: true,
      limitBytes: 1000,
      usedBytes: 0,
      remainingBytes: 1000,
      windowMs: DAY_SEC * 1000,
      resetsAt: '2024-03-11T00:00:00.000Z',
    })
  })

  it('records kept bytes and gives back dropped ones', async () => {
    const q = await quota()
    await endHold(await q.reserve(IP, 300), true)
    await endHold(await q.reserve(IP, 200), false)
    expect(await q.status(IP)).toMatchObject({ usedBytes: 300, remainingBytes: 700 })
  })

  it('holds bytes for a session row, which any holder ends: kept in their window or given back', async () => {
    const q = await quota()
    const dropped = await q.reserve(IP, 300)
    const kept = await q.reserve(IP, 200)
    expect(dropped).toMatchObject({ bytes: 300, windowStart: Date.UTC(2024, 2, 10) })
    expect(await q.status(IP)).toMatchObject({ usedBytes: 500 })
    // Another instance's quota object ends the holds, as the session's row names them.
    const other = await quota()
    await other.endHold(db.query, dropped!, false)
    await other.endHold(db.query, kept!, true)
    expect(await q.status(IP)).toMatchObject({ usedBytes: 200, remainingBytes: 800 })
    expect(await quota(0).then((off) => off.reserve(IP, 300))).toBeNull()
  })

  it('counts running uploads as used', async () => {
    const q = await quota()
    await q.reserve(IP, 400)
    expect(await q.status(IP)).toMatchObject({ usedBytes: 400, remainingBytes: 600 })
  })

  it('two concurrent reservations cannot overshoot the quota', async () => {
    const q = await quota()
    const first = await q.reserve(IP, 600)
    const err = await httpErrorOfAsync(() => q.reserve(IP, 600))
    expect(err.status).toBe(413)
    expect(err.message).toBe(ERROR_MESSAGES.quotaExceeded)
    await endHold(first, true)
    await expect(q.reserve(IP, 400)).resolves.toBeDefined()
  })

  it('answers 429 with Retry-After until the window ends once nothing is left', async () => {
    const q = await quota()
    await endHold(await q.reserve(IP, 1000), true)
    const err = await httpErrorOfAsync(() => q.reserve(IP, 1))
    expect(err.status).toBe(429)
    expect(err.message).toBe(ERROR_MESSAGES.quotaExhausted)
    expect(err.headers).toEqual({ 'Retry-After': String(12 * 3600) })
  })

  it('a reservation racing a settlement cannot overshoot the quota', async () => {
    const q = await quota()
    const first = await q.reserve(IP, 600)
    // The settlement moves the bytes from held to recorded; a check between the two saw neither.
    const [second] = await Promise.allSettled([q.reserve(IP, 600), endHold(first, true)])
    expect(second.status).toBe('rejected')
    expect(await q.status(IP)).toMatchObject({ usedBytes: 600 })
  })

  // Two instances on one database: what one holds, the other counts.
  it('holds running uploads in the database, where another instance sees them', async () => {
    const [one, other] = [await quota(), await quota()]
    const running = await one.reserve(IP, 600)
    expect((await httpErrorOfAsync(() => other.reserve(IP, 600))).status).toBe(413)
    expect(await other.status(IP)).toMatchObject({ usedBytes: 600 })
    await endHold(running, false)
    await expect(other.reserve(IP, 600)).resolves.toBeDefined()
  })

  it('keeps clients apart', async () => {
    const q = await quota()
    await endHold(await q.reserve(IP, 1000), true)
    expect(await q.status(OTHER_IP)).toMatchObject({ usedBytes: 0 })
  })

  it('adds up usage atomically in one row per client and window', async () => {
    const q = await quota()
    await endHold(await q.reserve(IP, 100), true)
    await endHold(await q.reserve(IP, 250), true)
    const rows = await quotaRows()
    expect(rows).toHaveLength(1)
    expect(rows[0]?.bytes).toBe(350)
    expect(rows[0]?.windowStart).toBe(Date.UTC(2024, 2, 10))
  })

  it('restart keeps usage and the secret', async () => {
    await endHold(await (await quota()).reserve(IP, 700), true)
    const secret = await settingRows()
    await db.close()
    db = await openSqlite(dir)
    expect(await settingRows()).toEqual(secret)
    expect(await (await quota()).status(IP)).toMatchObject({ usedBytes: 700, remainingBytes: 300 })
  })

  it('never stores the IP in clear, and the stored hash changes from one day to the next', async () => {
    const q = await quota()
    await endHold(await q.reserve(IP, 10), true)
    clock.now = MIDNIGHT_AFTER + 1
    await endHold(await q.reserve(IP, 10), true)
    const rows = await quotaRows()
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row.clientHash).toMatch(/^[0-9a-f]{64}$/)
      expect(row.clientHash).not.toContain(IP)
    }
    expect(rows[0]?.clientHash).not.toBe(rows[1]?.clientHash)
    const stored = db.connection.prepare('SELECT * FROM upload_quota').all([])
    expect(JSON.stringify(stored)).not.toContain(IP)
  })

  it('generates a 32-byte secret once and keeps using it', async () => {
    await quota()
    const first = await settingRows()
    await quota()
    const second = await settingRows()
    expect(first).toHaveLength(1)
    expect(first[0]?.key).toBe(QUOTA_SECRET_SETTING)
    expect(first[0]?.value).toHaveLength(32)
    expect(second).toEqual(first)
  })

  it('starts a new window on the epoch-aligned boundary', async () => {
    const q = await quota(1000, 3600)
    await endHold(await q.reserve(IP, 1000), true)
    clock.now = NOON + 3600_000 - 1
    expect(await q.status(IP)).toMatchObject({
      remainingBytes: 0,
      resetsAt: '2024-03-10T13:00:00.000Z',
    })
    clock.now = NOON + 3600_000
    expect(await q.status(IP)).toMatchObject({ remainingBytes: 1000 })
  })

  it('keeps holding a running upload across a window change, and records it where it was held', async () => {
    const q = await quota(1000, 3600)
    const running = await q.reserve(IP, 800)
    clock.now = NOON + 3600_000
    await expect(q.reserve(IP, 300)).rejects.toThrow(HttpError)
    await endHold(running, true)
    // Recorded in the window it was held in, which the next one no longer counts.
    const { uploadQuota } = db.tables
    const rows = await db.query
      .select({ windowStart: uploadQuota.windowStart, bytes: uploadQuota.bytes })
      .from(uploadQuota)
    expect(rows.filter((row) => row.bytes > 0)).toEqual([{ windowStart: NOON, bytes: 800 }])
    expect(await q.status(IP)).toMatchObject({ usedBytes: 0 })
  })

  it('keeps the row of the previous window while an upload of it runs', async () => {
    const q = await quota(1000, 3600)
    const running = await q.reserve(IP, 100)
    clock.now = NOON + 3600_000
    expect(await q.prune()).toBe(0)
    clock.now = NOON + 2 * 3600_000
    expect(await q.prune()).toBe(1)
    // Its window is gone: an upload outlasting two windows is no longer counted.
    await endHold(running, true)
    expect(await q.status(IP)).toMatchObject({ usedBytes: 0 })
  })

  it('prunes rows of past windows only', async () => {
    const q = await quota(1000, 3600)
    await endHold(await q.reserve(IP, 10), true)
    clock.now = NOON + 3600_000
    await endHold(await q.reserve(IP, 20), true)
    expect(await q.prune()).toBe(1)
    const { uploadQuota } = db.tables
    expect(await db.query.select({ bytes: uploadQuota.bytes }).from(uploadQuota)).toEqual([
      { bytes: 20 },
    ])
  })

  it('is off at 0: every reservation passes and the status is all null', async () => {
    const q = await quota(0)
    for (let i = 0; i < 3; i++) await endHold(await q.reserve(IP, Number.MAX_SAFE_INTEGER), true)
    expect(await q.status(IP)).toEqual({
      enabled: false,
      limitBytes: null,
      usedBytes: null,
      remainingBytes: null,
      windowMs: null,
      resetsAt: null,
    })
    expect(await quotaRows()).toEqual([])
  })
})
