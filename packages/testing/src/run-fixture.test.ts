/** A run's fixture starts once for every project that takes it and stops after the last release. */
import { describe, expect, it } from 'vitest'

import { takeRunFixture } from './run-fixture.js'

function counted() {
  const calls = { started: 0, stopped: 0 }
  return {
    calls,
    start: async () => ({ id: ++calls.started }),
    stop: async () => void (calls.stopped += 1),
  }
}

describe('takeRunFixture', () => {
  it('starts the fixture once for projects that take it at the same time', async () => {
    const { calls, start, stop } = counted()
    const [first, second] = await Promise.all([
      takeRunFixture('together', start, stop),
      takeRunFixture('together', start, stop),
    ])
    expect(calls.started).toBe(1)
    expect(second.fixture).toBe(first.fixture)
    await first.release()
    expect(calls.stopped).toBe(0)
    await second.release()
    expect(calls.stopped).toBe(1)
  })

  it('starts it again for a project that takes it after the last release', async () => {
    const { calls, start, stop } = counted()
    await (await takeRunFixture('again', start, stop)).release()
    const later = await takeRunFixture('again', start, stop)
    expect(later.fixture).toEqual({ id: 2 })
    await later.release()
    expect(calls).toEqual({ started: 2, stopped: 2 })
  })

  it('lets a project that takes it after a failed start try again', async () => {
    let attempts = 0
    const start = async () => {
      attempts += 1
      if (attempts === 1) throw new Error('did not start')
      return 'up'
    }
    await expect(takeRunFixture('failing', start, async () => {})).rejects.toThrow('did not start')
    const retried = await takeRunFixture('failing', start, async () => {})
    expect(retried.fixture).toBe('up')
    await retried.release()
  })
})
