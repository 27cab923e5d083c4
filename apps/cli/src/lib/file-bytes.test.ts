/** Random access to a downloaded archive: exact ranges across slices, and a file that shrank. */
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, expect, it } from 'vitest'

import { CliError, EXIT } from './errors.js'
import { openFileBytes } from './file-bytes.js'

let work: string

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'fileshare-file-bytes-'))
})

afterEach(async () => {
  await rm(work, { recursive: true, force: true })
})

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

it('reads and streams exactly the range asked for, a large one in slices', async () => {
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 5)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff
  const path = join(work, 'archive.zip')
  await writeFile(path, bytes)
  const file = await openFileBytes(path)
  try {
    expect(file.plainSize).toBe(bytes.length)
    expect(Buffer.from(await file.read(10, 20))).toEqual(bytes.subarray(10, 20))
    expect((await file.read(7, 7)).length).toBe(0)
    const chunks = await collect(file.stream(3, bytes.length - 1))
    // No slice is larger than 1 MiB: a large entry never sits whole in memory.
    expect(Math.max(...chunks.map((c) => c.length))).toBe(1024 * 1024)
    expect(Buffer.concat(chunks).equals(bytes.subarray(3, bytes.length - 1))).toBe(true)
  } finally {
    await file.close()
  }
})

it('fails with exit 3 when the file is shorter than the range', async () => {
  const path = join(work, 'archive.zip')
  await writeFile(path, Buffer.alloc(1000, 1))
  const file = await openFileBytes(path)
  try {
    await truncate(path, 500)
    const error = await collect(file.stream(0, 1000)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CliError)
    expect(error).toMatchObject({ message: 'The archive ended early', exitCode: EXIT.FAILED })
    await expect(file.read(400, 600)).rejects.toThrow('The archive ended early')
  } finally {
    await file.close()
  }
})
