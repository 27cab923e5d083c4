import { describe, expect, it } from 'vitest'

import { addSample, etaSeconds, rateOf, type RateSample } from './progress-math'

describe('rate and ETA', () => {
  it('has no rate from a single sample', () => {
    expect(rateOf([{ at: 0, bytes: 0 }])).toBeNull()
  })

  it('measures bytes per second over the window', () => {
    let samples: RateSample[] = []
    for (let s = 0; s <= 4; s++)
      samples = addSample(samples, { at: s * 1000, bytes: s * 2_000_000 })
    expect(rateOf(samples)).toBe(2_000_000)
  })

  it('forgets samples older than the window, so a stall shows up', () => {
    let samples: RateSample[] = []
    for (let s = 0; s <= 10; s++) {
      samples = addSample(samples, { at: s * 1000, bytes: Math.min(s, 5) * 1_000_000 }, 3000)
    }
    // Seconds 7 to 10 brought nothing: the rate over the last window is 0.
    expect(rateOf(samples)).toBe(0)
    expect(samples.length).toBeLessThanOrEqual(5)
  })

  it('computes the time left from the rate', () => {
    expect(etaSeconds(25, 100, 5)).toBe(15)
    expect(etaSeconds(100, 100, null)).toBe(0)
    expect(etaSeconds(10, 100, null)).toBeNull()
    expect(etaSeconds(10, 100, 0)).toBeNull()
  })
})
