/**
 * Standard input for `send -`. An upload declares its size before its first byte, so the input
 * is read to its end first, into a temporary file that is unlinked as soon as it is opened and
 * encrypted on its way to disk (AES-256-CTR under a key that exists only in this process): a
 * finished, failed or killed command leaves nothing readable behind. The file is then read back
 * in record-sized slices, as a file given by path is.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { RECORD_SIZE } from '@fileshare/protocol'

import { boundedInput } from './stdin.js'

export interface Spool {
  /** Bytes read from the input. */
  size: number
  /** The input again, from its first byte; each call starts a new read. */
  stream(): ReadableStream<Uint8Array>
  /** Closes the file (its space is freed) and forgets the key. */
  close(): Promise<void>
}

/**
 * Reads `input` to its end into a spool; more than `maxBytes` is refused with a usage error as
 * soon as it is passed, so a runaway pipe cannot fill the disk.
 */
export async function spoolInput(
  input: NodeJS.ReadableStream,
  maxBytes: number,
  dir = tmpdir(),
): Promise<Spool> {
  const folder = await mkdtemp(join(dir, 'fileshare-stdin-'))
  const handle = await open(join(folder, 'spool'), 'wx+', 0o600)
  await rm(folder, { recursive: true, force: true })
  const key = randomBytes(32)
  const iv = randomBytes(16)
  let size = 0
  try {
    const cipher = createCipheriv('aes-256-ctr', key, iv)
    for await (const bytes of boundedInput(input, maxBytes, 'Standard input')) {
      const sealed = cipher.update(bytes)
      await handle.write(sealed, 0, sealed.length, size)
      size += bytes.length
    }
  } catch (error) {
    await handle.close()
    key.fill(0)
    throw error
  }
  const total = size
  return {
    size: total,
    stream() {
      const decipher = createDecipheriv('aes-256-ctr', key, iv)
      let position = 0
      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const want = Math.min(RECORD_SIZE, total - position)
            if (want === 0) {
              controller.close()
              return
            }
            const slice = Buffer.allocUnsafe(want)
            const { bytesRead } = await handle.read(slice, 0, want, position)
            if (bytesRead === 0) throw new Error('The spooled input ended early')
            position += bytesRead
            controller.enqueue(decipher.update(slice.subarray(0, bytesRead)))
          },
        },
        { highWaterMark: 0 },
      )
    },
    async close() {
      key.fill(0)
      await handle.close()
    },
  }
}
