/**
 * A 4 GiB payload streamed through both ciphers, never held in memory: RSS must stay flat. Each
 * sample follows a full collection, so it shows what the streams still hold, not the records V8
 * has yet to collect, whose pile grows with how long the collector waits and so with the load.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

import { describe, expect, it } from 'vitest'
import { deriveUploadKeys } from '../src/crypto/keys.js'
import { createDecryptStream, createEncryptStream } from '../src/crypto/stream.js'
import { encryptedSize } from '../src/sizes.js'
import { pseudoRandomBytes } from './streams.js'

const TOTAL = 4 * 1024 ** 3
const BLOCK = 1024 * 1024
/** Headroom for records in flight and garbage not yet collected; far below the payload size. */
const MAX_RSS_GROWTH = 256 * 1024 * 1024

const base = pseudoRandomBytes(BLOCK, 42)

setFlagsFromString('--expose-gc')
/** A full collection; a new context's global `gc` exists once the flag is set. */
const collect = runInNewContext('gc') as () => void

/** Block `i` of the payload: the shared random block with the index stamped over its start. */
function block(i: number): Uint8Array {
  const out = base.slice()
  new DataView(out.buffer).setFloat64(0, i)
  return out
}

function payload(): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i * BLOCK >= TOTAL) controller.close()
      else controller.enqueue(block(i++))
    },
  })
}

describe('streaming 4 GiB', () => {
  it('round-trips byte for byte with flat memory', async () => {
    const keys = await deriveUploadKeys(pseudoRandomBytes(32, 5), pseudoRandomBytes(32, 6))
    collect()
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => {
      collect()
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 20)

    let cipherBytes = 0
    let plainOffset = 0
    let mismatches = 0
    const countCiphertext = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        cipherBytes += chunk.length
        controller.enqueue(chunk)
      },
    })
    const verify = new WritableStream<Uint8Array>({
      write(chunk) {
        let done = 0
        while (done < chunk.length) {
          const index = Math.floor(plainOffset / BLOCK)
          const within = plainOffset % BLOCK
          const length = Math.min(chunk.length - done, BLOCK - within)
          const expected = block(index).subarray(within, within + length)
          const actual = chunk.subarray(done, done + length)
          if (!Buffer.from(actual.buffer, actual.byteOffset, length).equals(expected)) mismatches++
          done += length
          plainOffset += length
        }
      },
    })
    try {
      await payload()
        .pipeThrough(createEncryptStream(keys.fileKey))
        .pipeThrough(countCiphertext)
        .pipeThrough(createDecryptStream(keys.fileKey))
        .pipeTo(verify)
    } finally {
      clearInterval(sampler)
    }
    collect()
    peak = Math.max(peak, process.memoryUsage().rss)

    expect(mismatches).toBe(0)
    expect(plainOffset).toBe(TOTAL)
    expect(cipherBytes).toBe(encryptedSize(TOTAL))
    expect(peak - before).toBeLessThan(MAX_RSS_GROWTH)
  }, 600_000)
})
