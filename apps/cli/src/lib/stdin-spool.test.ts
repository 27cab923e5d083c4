import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { UsageError } from './errors.js'
import { spoolInput } from './stdin-spool.js'

async function drain(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const part of stream) parts.push(part)
  return Buffer.concat(parts)
}

describe('spoolInput', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fileshare-spool-test-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('gives the input back whole, as often as it is read, from a file already unlinked', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 123)
    const pieces = [
      data.subarray(0, 1000),
      data.subarray(1000, 1_500_000),
      data.subarray(1_500_000),
    ]
    const spool = await spoolInput(Readable.from(pieces), data.length, dir)
    try {
      expect(await readdir(dir)).toEqual([])
      expect(spool.size).toBe(data.length)
      expect((await drain(spool.stream())).equals(data)).toBe(true)
      // A second read (an upload that falls back to HTTP) starts over from the first byte.
      expect((await drain(spool.stream())).equals(data)).toBe(true)
    } finally {
      await spool.close()
    }
  })

  it('takes empty input and text chunks', async () => {
    const empty = await spoolInput(Readable.from([]), 10, dir)
    expect(empty.size).toBe(0)
    expect((await drain(empty.stream())).length).toBe(0)
    await empty.close()
    const text = await spoolInput(Readable.from(['héllo ', 'wörld']), 100, dir)
    expect((await drain(text.stream())).toString('utf8')).toBe('héllo wörld')
    await text.close()
  })

  it('refuses input over the limit as soon as it passes it, leaving nothing behind', async () => {
    let pulled = 0
    async function* endless() {
      for (;;) {
        pulled++
        yield randomBytes(1000)
      }
    }
    await expect(spoolInput(Readable.from(endless()), 5000, dir)).rejects.toThrow(UsageError)
    expect(pulled).toBeLessThanOrEqual(7)
    expect(await readdir(dir)).toEqual([])
  })
})
