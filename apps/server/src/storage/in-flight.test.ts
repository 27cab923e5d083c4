import { describe, expect, it } from 'vitest'

import { InFlight, inParallel } from './in-flight.js'

/** A promise with its resolve and reject at hand. */
function deferred() {
  let resolve!: () => void
  let reject!: (error: Error) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('InFlight', () => {
  it('runs at most its limit at once, starting the next as a place frees', async () => {
    const inFlight = new InFlight(2)
    const gates = [deferred(), deferred(), deferred()]
    const started: number[] = []
    const task = (i: number) => async () => {
      started.push(i)
      await gates[i]!.promise
    }
    await inFlight.start(task(0))
    await inFlight.start(task(1))
    const third = inFlight.start(task(2))
    await Promise.resolve()
    expect(started).toEqual([0, 1])
    gates[1]!.resolve()
    await expect(third).resolves.toBe(true)
    expect(started).toEqual([0, 1, 2])
    gates[0]!.resolve()
    gates[2]!.resolve()
    await inFlight.drain()
  })

  it('starts nothing after a failure and throws it once the rest settled', async () => {
    const inFlight = new InFlight(2)
    const slow = deferred()
    let slowDone = false
    await inFlight.start(async () => {
      await slow.promise
      slowDone = true
    })
    await inFlight.start(() => Promise.reject(new Error('part failed')))
    await expect(inFlight.start(async () => undefined)).rejects.toThrow('part failed')
    const drained = inFlight.drain()
    slow.resolve()
    await expect(drained).rejects.toThrow('part failed')
    expect(slowDone).toBe(true)
  })

  it('answers false to a start that was waiting for a place when stopped', async () => {
    const inFlight = new InFlight(1)
    const gate = deferred()
    await inFlight.start(() => gate.promise)
    let ran = false
    const waiting = inFlight.start(async () => {
      ran = true
    })
    inFlight.stop()
    gate.resolve()
    await expect(waiting).resolves.toBe(false)
    await inFlight.settle()
    expect(ran).toBe(false)
  })
})

describe('inParallel', () => {
  it('answers the results in order and keeps to the limit', async () => {
    let running = 0
    let most = 0
    const results = await inParallel([5, 1, 4, 2, 3], 2, async (delay, i) => {
      most = Math.max(most, ++running)
      await new Promise((resolve) => setTimeout(resolve, delay))
      running--
      return i * 10
    })
    expect(results).toEqual([0, 10, 20, 30, 40])
    expect(most).toBe(2)
  })

  it('throws the first failure only after the work under way has settled', async () => {
    const slow = deferred()
    let settled = false
    const run = inParallel([0, 1, 2], 2, async (i) => {
      if (i === 0) {
        await slow.promise
        settled = true
      }
      if (i === 1) throw new Error('copy failed')
      return i
    })
    let thrown = false
    run.catch(() => (thrown = true))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(thrown).toBe(false)
    slow.resolve()
    await expect(run).rejects.toThrow('copy failed')
    expect(settled).toBe(true)
  })
})
