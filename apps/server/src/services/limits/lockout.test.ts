import { ERROR_MESSAGES } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { HttpError } from '../../http-error.js'
import { MemoryLockout, tokenUnderLockout } from './lockout.js'
import { httpErrorOf } from '../../../test/http-error-of.js'

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

describe('tokenUnderLockout', () => {
  const wrong = { matches: false, wellFormed: true }
  const malformed = { matches: false, wellFormed: false }
  const right = { matches: true, wellFormed: true }
  const guard = { key: 'upload:a', clientIp: IP, hasPassword: true }

  it('counts well-formed wrong tokens on a protected item, then locks even the right one', () => {
    const { lockout } = setup()
    expect(tokenUnderLockout(lockout, guard, malformed)).toBe(false)
    for (let i = 0; i < 3; i++) expect(tokenUnderLockout(lockout, guard, wrong)).toBe(false)
    expect(httpErrorOf(() => tokenUnderLockout(lockout, guard, right)).status).toBe(429)
  })

  it('clears the failures on a right token', () => {
    const { lockout } = setup()
    tokenUnderLockout(lockout, guard, wrong)
    tokenUnderLockout(lockout, guard, wrong)
    expect(tokenUnderLockout(lockout, guard, right)).toBe(true)
    tokenUnderLockout(lockout, guard, wrong)
    tokenUnderLockout(lockout, guard, wrong)
    expect(tokenUnderLockout(lockout, guard, right)).toBe(true)
  })

  it('never locks an item without a password', () => {
    const { lockout } = setup()
    const open = { ...guard, hasPassword: false }
    for (let i = 0; i < 5; i++) expect(tokenUnderLockout(lockout, open, wrong)).toBe(false)
    expect(tokenUnderLockout(lockout, open, right)).toBe(true)
  })
})
