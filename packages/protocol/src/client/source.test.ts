import { describe, expect, it } from 'vitest'
import { collect, pseudoRandomBytes, streamOf } from '../../test/streams.js'
import { bytesSource, exactSize, type PayloadSource } from './source.js'

describe('payload sources', () => {
  it('accepts a Blob as it is, and reads bytes in memory as often as asked', async () => {
    const bytes = pseudoRandomBytes(5000, 4)
    const blob: PayloadSource = new Blob([bytes as Uint8Array<ArrayBuffer>])
    expect(blob.size).toBe(5000)
    expect(await collect(exactSize(blob))).toEqual(bytes)
    const source = bytesSource(bytes)
    expect(await collect(source.stream())).toEqual(bytes)
    expect(await collect(source.stream())).toEqual(bytes)
    expect(await collect(bytesSource(new Uint8Array(0)).stream())).toEqual(new Uint8Array(0))
  })

  it('fails with BAD_INPUT when a source yields more or fewer bytes than its size', async () => {
    const bytes = pseudoRandomBytes(100, 5)
    for (const size of [99, 101]) {
      const lying: PayloadSource = { size, stream: () => streamOf(bytes, [30]) }
      await expect(collect(exactSize(lying))).rejects.toMatchObject({ code: 'BAD_INPUT' })
    }
  })
})
