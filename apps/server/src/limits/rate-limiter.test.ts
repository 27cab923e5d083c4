import { describe, expect, it } from 'vitest'

import { RateLimiter, SLOTS } from './rate-limiter.js'

const WINDOW = 60_000
const SLOT = WINDOW / SLOTS
/** A slot boundary, so the times in the tests fall where they say. */
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

/** A generator of numbers in [0, 1) from a seed, so a failing case can be run again. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
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

  // The spec's sliding window: a burst at the end of one window and another at the start of
  // the next must not add up to more than the limit within one window length.
  it('never lets more than max requests through within any window', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = seeded(seed)
      const { clock, limiter } = setup(20)
      const allowed: number[] = []
      for (let i = 0; i < 3000; i++) {
        // Bursts and pauses: mostly a few milliseconds apart, now and then seconds.
        clock.now += random() < 0.02 ? Math.floor(random() * 20_000) : Math.floor(random() * 80)
        if (limiter.hit('a').allowed) allowed.push(clock.now)
      }
      let first = 0
      for (let last = 0; last < allowed.length; last++) {
        while (allowed[first]! <= allowed[last]! - WINDOW) first++
        expect(last - first + 1).toBeLessThanOrEqual(20)
      }
      // Not a limiter that refuses everything either: over 3000 tries, the limit was reached.
      expect(allowed.length).toBeGreaterThan(100)
    }
  })

  it('refuses the second burst of two at either side of a window boundary', () => {
    const { clock, limiter } = setup(4)
    clock.now = T0 + WINDOW - 10
    for (let i = 0; i < 4; i++) expect(limiter.hit('a').allowed).toBe(true)
    clock.now = T0 + WINDOW + 10
    expect(limiter.hit('a')).toMatchObject({ allowed: false, remaining: 0 })
  })

  it('frees a slot once its requests are more than a window old', () => {
    const { clock, limiter } = setup(4)
    limiter.hit('a')
    clock.now = T0 + 2 * SLOT
    for (let i = 0; i < 3; i++) limiter.hit('a')
    // The first request's slot leaves the count at the start of the slot a window after its own
    // one; until then the client waits, and is told how long in whole seconds.
    clock.now = T0 + WINDOW + 500
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfterSec: 6 })
    clock.now = T0 + WINDOW + SLOT - 1
    expect(limiter.hit('a').allowed).toBe(false)
    clock.now = T0 + WINDOW + SLOT
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
    // The other three leave together, at the start of the slot after theirs plus a window.
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfterSec: 12 })
    // Then only the request of the slot that just freed still counts, with this one.
    clock.now = T0 + WINDOW + 3 * SLOT
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 2 })
  })

  it('reports reset as the Unix second when every counted request has left the window', () => {
    const { clock, limiter } = setup()
    clock.now = T0 + 15_000
    // 15 s is in the slot starting at 12 s; it leaves the count at 12 + 60 + 6 s.
    expect(limiter.hit('a').resetSec).toBe((T0 + 12_000 + WINDOW + SLOT) / 1000)
  })

  it('forgets everything once a window and a slot have passed in quiet', () => {
    const { clock, limiter } = setup(1)
    limiter.hit('a')
    clock.now = T0 + WINDOW + SLOT
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
  })

  it('drops idle IPs', () => {
    const { clock, limiter } = setup()
    for (let i = 0; i < 20; i++) limiter.hit(`10.0.0.${i}`)
    clock.now = T0 + WINDOW
    limiter.hit('10.0.1.1')
    expect(limiter.size).toBe(21)
    clock.now = T0 + WINDOW + SLOT
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
