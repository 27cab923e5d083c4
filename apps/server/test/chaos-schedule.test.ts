/**
 * The chaos run's fault schedule (chaos/schedule.ts) is drawn from its seed alone, so that a
 * failing run can be replayed: the same seed and length draw the same faults, another seed
 * others, and every fault ends before the run does.
 */
import { describe, expect, it } from 'vitest'

import { countFaults, drawSchedule, FAULT_KINDS } from '../chaos/schedule.js'
import { Seeded } from '../chaos/seeded.js'

describe('the chaos schedule', () => {
  it('draws the same faults from the same seed, and others from another', () => {
    expect(drawSchedule(7, 600)).toEqual(drawSchedule(7, 600))
    expect(drawSchedule(8, 600)).not.toEqual(drawSchedule(7, 600))
  })

  it('does not depend on what else was drawn from the seed', () => {
    const before = drawSchedule(11, 120)
    const workload = Seeded.derive(11, 'worker 0')
    for (let i = 0; i < 1000; i++) workload.next()
    expect(drawSchedule(11, 120)).toEqual(before)
  })

  it('ends every fault before the run ends and names an instance where one is struck', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const faults = drawSchedule(seed, 60)
      expect(faults.length).toBeGreaterThan(5)
      for (const fault of faults) {
        expect(fault.atMs + fault.holdMs).toBeLessThan(60_000)
        const struck = fault.kind === 'kill' || fault.kind === 'term' || fault.kind === 'pause'
        expect(fault.instance !== undefined).toBe(struck)
        if (struck) expect([0, 1, 2]).toContain(fault.instance)
      }
    }
  })

  it('draws every kind of fault over a long run', () => {
    const counts = countFaults(drawSchedule(3, 600))
    for (const kind of FAULT_KINDS) expect(counts[kind]).toBeGreaterThan(0)
  })
})

describe('the seeded stream', () => {
  it('repeats itself for a seed and spreads sizes over the orders of magnitude', () => {
    const a = new Seeded(42)
    const b = new Seeded(42)
    const drawn = Array.from({ length: 100 }, () => a.next())
    expect(drawn).toEqual(Array.from({ length: 100 }, () => b.next()))
    const sizes = Array.from({ length: 2000 }, () => a.size(2 ** 30))
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2 ** 30)
    expect(sizes.filter((size) => size < 2 ** 10).length).toBeGreaterThan(200)
    expect(sizes.filter((size) => size > 2 ** 20).length).toBeGreaterThan(200)
  })
})
