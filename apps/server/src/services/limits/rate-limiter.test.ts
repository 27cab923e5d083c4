import { describe, expect, it } from 'vitest'

import { RateLimiter } from './rate-limiter.js'

const WINDOW = 60_000
/** A bucket boundary, so elapsed fractions in the tests are exact. */
const T0 = 1_700_000_040_000

function setup(max = 3, maxEntries?: number) {
  const clock = { now: T0 }
  const limiter = new RateLimiter({
    windowMs: WINDOW,
    max,
    now: () => clock.now,
    ...(maxEntries === undefined ? {} : { maxEntries }),
  })
  return { clock, limiter }
}

describe('RateLimiter', () => {
  it('allows max requests per window and counts down remaining', () => {
    const { limiter } = setup()
    expect([1, 2, 3].map(() => limiter.hit('a').remaining)).toEqual([2, 1, 0])
    const refused = limiter.hit('a')
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0 })
  })

  it('keeps IPs apart', () => {
    const { limiter } = setup(1)
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('b').allowed).toBe(true)
    expect(limiter.hit('a').allowed).toBe(false)
  })

  it('reports reset as the Unix second when the estimate is back to zero', () => {
    const { clock, limiter } = setup()
    clock.now = T0 + 15_000
    expect(limiter.hit('a').resetSec).toBe((T0 + 2 * WINDOW) / 1000)
  })

  it('weights the previous bucket by the part of the window still overlapping it', () => {
    const { clock, limiter } = setup(4)
    for (let i = 0; i < 4; i++) limiter.hit('a')
    // A quarter into the next bucket, 3 of the previous 4 requests still count.
    clock.now = T0 + WINDOW + WINDOW / 4
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
    expect(limiter.hit('a')).toMatchObject({ allowed: false, remaining: 0, retryAfterSec: 1 })
    // The previous bucket frees one slot every quarter window.
    clock.now += 1
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfterSec: 15 })
    // Half-way in, 2 of them still count, and two requests have been made in this bucket.
    clock.now = T0 + WINDOW + WINDOW / 2 + 1
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
  })

  it('tells a refused client when the next slot frees, in whole seconds', () => {
    const { clock, limiter } = setup()
    for (let i = 0; i < 3; i++) limiter.hit('a')
    clock.now = T0 + 20_500
    // The current bucket alone is full, so the next slot opens with the next bucket.
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfterSec: 40 })
    clock.now = T0 + WINDOW + 1
    expect(limiter.hit('a').allowed).toBe(true)
  })

  it('forgets everything after two quiet windows', () => {
    const { clock, limiter } = setup(1)
    limiter.hit('a')
    clock.now = T0 + 2 * WINDOW
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
  })

  it('drops idle IPs', () => {
    const { clock, limiter } = setup()
    for (let i = 0; i < 20; i++) limiter.hit(`10.0.0.${i}`)
    clock.now = T0 + WINDOW
    limiter.hit('10.0.1.1')
    expect(limiter.size).toBe(21)
    clock.now = T0 + 2 * WINDOW
    limiter.hit('10.0.1.2')
    expect(limiter.size).toBe(2)
  })

  it('caps the number of IPs by forgetting the least recently seen one', () => {
    const { limiter } = setup(1, 2)
    limiter.hit('a')
    limiter.hit('b')
    limiter.hit('c')
    expect(limiter.size).toBe(2)
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('c').allowed).toBe(false)
  })

  it('allows everything and counts nothing when max is 0', () => {
    const { limiter } = setup(0)
    for (let i = 0; i < 1000; i++) expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.enabled).toBe(false)
    expect(limiter.size).toBe(0)
  })
})
