import { describe, expect, it } from 'vitest'

import { loadWithRetries } from './load-retry'

/** A load that fails `failures` times, then answers `value`; counts its calls. */
function flaky<T>(failures: number, value: T) {
  const loader = {
    calls: 0,
    load: async (): Promise<T> => {
      loader.calls++
      if (loader.calls <= failures)
        throw new TypeError('Failed to fetch dynamically imported module')
      return value
    },
  }
  return loader
}

describe('loadWithRetries', () => {
  it('answers at once when the first load works, without waiting', async () => {
    const waits: number[] = []
    const loader = flaky(0, 'page')
    expect(await loadWithRetries(loader.load, [10, 20], async (ms) => void waits.push(ms))).toBe(
      'page',
    )
    expect(loader.calls).toBe(1)
    expect(waits).toEqual([])
  })

  it('loads again after each wait until the code arrives', async () => {
    const waits: number[] = []
    const loader = flaky(2, 'page')
    expect(
      await loadWithRetries(loader.load, [10, 20, 30], async (ms) => void waits.push(ms)),
    ).toBe('page')
    expect(loader.calls).toBe(3)
    expect(waits).toEqual([10, 20])
  })

  it('gives up with the last failure once every wait is spent', async () => {
    const waits: number[] = []
    const loader = flaky(5, 'page')
    await expect(
      loadWithRetries(loader.load, [10, 20], async (ms) => void waits.push(ms)),
    ).rejects.toThrow('Failed to fetch dynamically imported module')
    expect(loader.calls).toBe(3)
    expect(waits).toEqual([10, 20])
  })
})
