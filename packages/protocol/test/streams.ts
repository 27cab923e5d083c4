/** Small helpers for feeding and draining Web Streams in tests. */
import { concatBytes } from '../src/encoding.js'

/** A readable stream that yields `data` in pieces of the given sizes (cycled), or whole. */
export function streamOf(
  data: Uint8Array,
  pieceSizes: number[] = [data.length || 1],
): ReadableStream<Uint8Array> {
  let offset = 0
  let turn = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) {
        controller.close()
        return
      }
      const size = Math.max(1, pieceSizes[turn++ % pieceSizes.length]!)
      controller.enqueue(data.slice(offset, offset + size))
      offset += size
    },
  })
}

export async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value)
  }
  return concatBytes(...parts)
}

export function pseudoRandomBytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed >>> 0 || 1
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 255
  }
  return out
}

/** Byte equality that stays fast on large arrays (deep equality walks them element by element). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b)
}
