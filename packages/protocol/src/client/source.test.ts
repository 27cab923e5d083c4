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

  it('reads a Blob from the offset of a resume, not again from its start', async () => {
    const bytes = pseudoRandomBytes(5000, 6)
    let readsFromStart = 0
    class WatchedBlob extends Blob {
      override stream() {
        readsFromStart++
        return super.stream()
      }
    }
    const blob = new WatchedBlob([bytes as Uint8Array<ArrayBuffer>])
    expect(await collect(exactSize(blob, 4321))).toEqual(bytes.subarray(4321))
    expect(readsFromStart).toBe(0)
    expect(await collect(exactSize(blob))).toEqual(bytes)
    expect(readsFromStart).toBe(1)
  })

  it('fails with BAD_INPUT when a source yields more or fewer bytes than its size', async () => {
    const bytes = pseudoRandomBytes(100, 5)
    for (const size of [99, 101]) {
      const lying: PayloadSource = { size, stream: () => streamOf(bytes, [30]) }
      await expect(collect(exactSize(lying))).rejects.toMatchObject({ code: 'BAD_INPUT' })
    }
  })
})
