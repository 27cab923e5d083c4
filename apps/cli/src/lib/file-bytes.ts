/**
 * A downloaded archive as random access to its bytes (`ArchiveBytes`), for the protocol's ZIP
 * reader: reads at an offset through one file handle, and streams a range in 1 MiB slices so
 * that an entry of any size passes without being held in memory. Only reads the file.
 */
import { open } from 'node:fs/promises'

import type { ArchiveBytes } from '@fileshare/protocol'

import { CliError, EXIT } from './errors.js'

const READ_SIZE = 1024 * 1024

export interface FileBytes extends ArchiveBytes {
  close(): Promise<void>
}

export async function openFileBytes(path: string): Promise<FileBytes> {
  const handle = await open(path, 'r')
  let plainSize: number
  try {
    plainSize = (await handle.stat()).size
  } catch (error) {
    await handle.close()
    throw error
  }
  /** Up to `length` bytes at `start`, at least one. */
  const readAt = async (start: number, length: number): Promise<Buffer> => {
    // Not zero-filled: only the bytes the read fills are handed on.
    const chunk = Buffer.allocUnsafeSlow(length)
    const { bytesRead } = await handle.read(chunk, 0, length, start)
    if (bytesRead === 0) throw new CliError('The archive ended early', EXIT.FAILED)
    return bytesRead === length ? chunk : chunk.subarray(0, bytesRead)
  }
  return {
    plainSize,
    async read(start, end) {
      const parts: Buffer[] = []
      for (let at = start; at < end; at += parts.at(-1)!.length) {
        parts.push(await readAt(at, end - at))
      }
      return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
    },
    stream(start, end) {
      let position = start
      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (position >= end) return controller.close()
            const chunk = await readAt(position, Math.min(READ_SIZE, end - position))
            position += chunk.length
            controller.enqueue(chunk)
          },
        },
        { highWaterMark: 0 },
      )
    },
    close: () => handle.close(),
  }
}
