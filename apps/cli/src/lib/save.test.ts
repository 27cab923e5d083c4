/** Downloads reach their name only when complete; zero runs become holes. */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { acquireBuffer, freeBufferCount, handOn } from './record-buffers.js'
import { placeFile, pumpStream, temporaryPath, writeTemporary } from './save.js'

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-save-'))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function streamOf(chunks: Uint8Array[], failAfter?: number): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream({
    pull(controller) {
      if (failAfter !== undefined && index === failAfter) {
        controller.error(new Error('tampered'))
        return
      }
      const chunk = chunks[index++]
      if (chunk === undefined) controller.close()
      else controller.enqueue(chunk)
    },
  })
}

describe('writeTemporary and placeFile', () => {
  it('leaves no file at all when the stream fails midway', async () => {
    // Integrity: a tampered download must not leave a file that looks finished.
    const final = join(dir, 'out.bin')
    const temporary = temporaryPath(final)
    const chunks = [new Uint8Array(1000).fill(7), new Uint8Array(1000).fill(8)]
    await expect(
      writeTemporary(temporary, (writer) => pumpStream(streamOf(chunks, 1), writer)),
    ).rejects.toThrow('tampered')
    expect(await readdir(dir)).toEqual([])
  })

  it('writes zero runs as holes and keeps the exact bytes and length', async () => {
    const final = join(dir, 'sparse.bin')
    const temporary = temporaryPath(final)
    const zeros = new Uint8Array(8 * 1024 * 1024)
    const data = new Uint8Array(4096).fill(1)
    await writeTemporary(temporary, (writer) =>
      pumpStream(streamOf([data, zeros, data, zeros]), writer),
    )
    await placeFile(temporary, final, false)
    const stats = await stat(final)
    expect(stats.size).toBe(2 * (zeros.length + data.length))
    // Two 4 KiB data blocks plus metadata, far below the 16 MiB of zeros.
    expect(stats.blocks * 512).toBeLessThan(1024 * 1024)
    const bytes = await readFile(final)
    expect(bytes.subarray(0, 4096).every((b) => b === 1)).toBe(true)
    expect(bytes.subarray(4096, 4096 + zeros.length).every((b) => b === 0)).toBe(true)
    expect(await readdir(dir)).toEqual(['sparse.bin'])
  })

  it('never replaces an existing file without force', async () => {
    const final = join(dir, 'taken.txt')
    await writeFile(final, 'mine')
    const temporary = temporaryPath(final)
    await writeTemporary(temporary, (writer) =>
      pumpStream(streamOf([new Uint8Array([65])]), writer),
    )
    await expect(placeFile(temporary, final, false)).rejects.toThrow(/already exists/)
    expect(await readFile(final, 'utf8')).toBe('mine')
    expect(await readdir(dir)).toEqual(['taken.txt'])
  })

  it('gives a handed-on buffer back once the disk has written it, and a hole at once', async () => {
    const final = join(dir, 'reuse.bin')
    const temporary = temporaryPath(final)
    const data = acquireBuffer()
    new Uint8Array(data).fill(9)
    const zeros = acquireBuffer()
    new Uint8Array(zeros).fill(0)
    const before = freeBufferCount()
    await writeTemporary(temporary, (writer) =>
      pumpStream(streamOf([handOn(data, 100_000), handOn(zeros, 8192)]), writer),
    )
    expect(freeBufferCount()).toBe(before + 2)
    const written = await readFile(temporary)
    expect(written.length).toBe(108_192)
    expect(written.subarray(0, 100_000).every((b) => b === 9)).toBe(true)
    expect(written.subarray(100_000).every((b) => b === 0)).toBe(true)
    acquireBuffer()
    acquireBuffer()
  })
})
