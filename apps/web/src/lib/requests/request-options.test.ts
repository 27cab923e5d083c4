import { describe, expect, it } from 'vitest'

import { createRequest } from '@fileshare/protocol'

import { defaultMaxSize, maxSizeOptions, messageFits, middleOption } from './request-options'

describe('request options', () => {
  it('offers the round sizes below the server maximum and the maximum itself', () => {
    const twoGiB = 2 * 1024 ** 3
    expect(maxSizeOptions(twoGiB)).toEqual([1e7, 1e8, 5e8, 1e9, twoGiB])
    expect(maxSizeOptions(1e8)).toEqual([1e7, 1e8])
    expect(maxSizeOptions(5000)).toEqual([5000])
  })

  it('preselects 1 GB or the largest size under it', () => {
    expect(defaultMaxSize([1e7, 1e8, 5e8, 1e9, 2e9])).toBe(1e9)
    expect(defaultMaxSize([1e7, 1e8])).toBe(1e8)
    expect(defaultMaxSize([5e9])).toBe(5e9)
    expect(defaultMaxSize([])).toBeUndefined()
  })

  it('preselects the middle option', () => {
    expect(middleOption([1, 5, 10, 25, 50])).toBe(10)
    expect(middleOption([1, 3, 5, 10])).toBe(3)
    expect(middleOption([7])).toBe(7)
    expect(middleOption([])).toBeUndefined()
  })
})

describe('messageFits', () => {
  it('agrees with the brief encoder at the 8 KiB boundary', async () => {
    // {"message":"…","acceptsNote":false} is 34 bytes around the message; 8192 - 67 - 34 = 8091.
    const longest = 'x'.repeat(8091)
    expect(messageFits(longest, false)).toBe(true)
    expect(messageFits(`${longest}x`, false)).toBe(false)
    await expect(createRequest({ message: longest, acceptsNote: false })).resolves.toBeDefined()
    await expect(createRequest({ message: `${longest}x`, acceptsNote: false })).rejects.toThrow(
      /too long/,
    )
  })

  it('counts UTF-8 bytes and JSON escapes', () => {
    expect(messageFits('€'.repeat(2697), false)).toBe(true)
    expect(messageFits('€'.repeat(2698), false)).toBe(false)
    expect(messageFits('"'.repeat(4046), false)).toBe(false)
  })
})
