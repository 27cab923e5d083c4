import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { openDatabase, type Db } from '../../db/client.js'
import { settings, uploadQuota } from '../../db/schema.js'
import { HttpError } from '../../http-error.js'
import { DbUploadQuota, QUOTA_SECRET_SETTING } from './quota.js'
import { httpErrorOf } from '../../../test/http-error-of.js'

const DAY_SEC = 86_400
const IP = '203.0.113.7'
const OTHER_IP = '198.51.100.2'
/** 2024-03-10T12:00:00.000Z, in the middle of a daily window. */
const NOON = Date.UTC(2024, 2, 10, 12)
const MIDNIGHT_AFTER = Date.UTC(2024, 2, 11)

let dir: string
let db: Db
const clock = { now: NOON }

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fileshare-quota-'))
  db = openDatabase(dir)
  clock.now = NOON
})

afterEach(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

function quota(quotaBytes = 1000, windowSec = DAY_SEC, database = db): DbUploadQuota {
  return new DbUploadQuota({ db: database, quotaBytes, windowSec, now: () => clock.now })
}

describe('DbUploadQuota', () => {
  it('reports the full quota of a new client with the end of the window', () => {
    expect(quota().status(IP)).toEqual({
      enabled: true,
      limitBytes: 1000,
      usedBytes: 0,
      remainingBytes: 1000,
      windowMs: DAY_SEC * 1000,
      resetsAt: '2024-03-11T00:00:00.000Z',
    })
  })

  it('records kept bytes and gives back dropped ones', () => {
    const q = quota()
    q.reserve(IP, 300).settle(true)
    q.reserve(IP, 200).settle(false)
    expect(q.status(IP)).toMatchObject({ usedBytes: 300, remainingBytes: 700 })
  })

  it('counts running uploads as used', () => {
    const q = quota()
    q.reserve(IP, 400)
    expect(q.status(IP)).toMatchObject({ usedBytes: 400, remainingBytes: 600 })
  })

  it('two concurrent reservations cannot overshoot the quota', () => {
    const q = quota()
    const first = q.reserve(IP, 600)
    const err = httpErrorOf(() => q.reserve(IP, 600))
    expect(err.status).toBe(413)
    expect(err.message).toBe(ERROR_MESSAGES.quotaExceeded)
    first.settle(true)
    expect(() => q.reserve(IP, 400)).not.toThrow()
  })

  it('answers 429 with Retry-After until the window ends once nothing is left', () => {
    const q = quota()
    q.reserve(IP, 1000).settle(true)
    const err = httpErrorOf(() => q.reserve(IP, 1))
    expect(err.status).toBe(429)
    expect(err.message).toBe(ERROR_MESSAGES.quotaExhausted)
    expect(err.headers).toEqual({ 'Retry-After': String(12 * 3600) })
  })

  it('settles only once', () => {
    const q = quota()
    const reservation = q.reserve(IP, 300)
    reservation.settle(true)
    reservation.settle(true)
    reservation.settle(false)
    expect(q.status(IP)).toMatchObject({ usedBytes: 300 })
  })

  it('keeps clients apart', () => {
    const q = quota()
    q.reserve(IP, 1000).settle(true)
    expect(q.status(OTHER_IP)).toMatchObject({ usedBytes: 0 })
  })

  it('adds up usage atomically in one row per client and window', () => {
    const q = quota()
    q.reserve(IP, 100).settle(true)
    q.reserve(IP, 250).settle(true)
    const rows = db.select().from(uploadQuota).all()
    expect(rows).toHaveLength(1)
    expect(rows[0]?.bytes).toBe(350)
    expect(rows[0]?.windowStart).toBe(Date.UTC(2024, 2, 10))
  })

  it('restart keeps usage and the secret', () => {
    quota().reserve(IP, 700).settle(true)
    const secret = db.select().from(settings).all()
    db.$client.close()
    db = openDatabase(dir)
    expect(db.select().from(settings).all()).toEqual(secret)
    expect(quota().status(IP)).toMatchObject({ usedBytes: 700, remainingBytes: 300 })
  })

  it('never stores the IP in clear, and the stored hash changes from one day to the next', () => {
    const q = quota()
    q.reserve(IP, 10).settle(true)
    clock.now = MIDNIGHT_AFTER + 1
    q.reserve(IP, 10).settle(true)
    const rows = db.select().from(uploadQuota).all()
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row.clientHash).toMatch(/^[0-9a-f]{64}$/)
      expect(row.clientHash).not.toContain(IP)
    }
    expect(rows[0]?.clientHash).not.toBe(rows[1]?.clientHash)
    const stored = db.$client.prepare('SELECT * FROM upload_quota').all()
    expect(JSON.stringify(stored)).not.toContain(IP)
  })

  it('generates a 32-byte secret once and keeps using it', () => {
    quota()
    const first = db.select().from(settings).all()
    quota()
    const second = db.select().from(settings).all()
    expect(first).toHaveLength(1)
    expect(first[0]?.key).toBe(QUOTA_SECRET_SETTING)
    expect(first[0]?.value).toHaveLength(32)
    expect(second).toEqual(first)
  })

  it('starts a new window on the epoch-aligned boundary', () => {
    const q = quota(1000, 3600)
    q.reserve(IP, 1000).settle(true)
    clock.now = NOON + 3600_000 - 1
    expect(q.status(IP)).toMatchObject({ remainingBytes: 0, resetsAt: '2024-03-10T13:00:00.000Z' })
    clock.now = NOON + 3600_000
    expect(q.status(IP)).toMatchObject({ remainingBytes: 1000 })
  })

  it('keeps holding a running upload across a window change', () => {
    const q = quota(1000, 3600)
    const running = q.reserve(IP, 800)
    clock.now = NOON + 3600_000
    expect(() => q.reserve(IP, 300)).toThrow(HttpError)
    running.settle(true)
    expect(q.status(IP)).toMatchObject({ usedBytes: 800 })
  })

  it('prunes rows of past windows only', () => {
    const q = quota(1000, 3600)
    q.reserve(IP, 10).settle(true)
    clock.now = NOON + 3600_000
    q.reserve(IP, 20).settle(true)
    expect(q.prune()).toBe(1)
    expect(db.select({ bytes: uploadQuota.bytes }).from(uploadQuota).all()).toEqual([{ bytes: 20 }])
  })

  it('is off at 0: every reservation passes and the status is all null', () => {
    const q = quota(0)
    for (let i = 0; i < 3; i++) q.reserve(IP, Number.MAX_SAFE_INTEGER).settle(true)
    expect(q.status(IP)).toEqual({
      enabled: false,
      limitBytes: null,
      usedBytes: null,
      remainingBytes: null,
      windowMs: null,
      resetsAt: null,
    })
    expect(db.select().from(uploadQuota).all()).toEqual([])
  })
})
