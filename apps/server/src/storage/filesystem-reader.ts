/**
 * Reading a blob file under DATA_DIR/blobs (filesystem.ts) for a download: block by block into a
 * socket with a bounded window, or as a web stream, from reused read buffers.
 * May touch: the file system (the blob file handle it is given).
 */
import { type FileHandle } from 'node:fs/promises'
import type { Writable } from 'node:stream'

import { drained, type OpenedBlob } from './blob-store.js'

/** Bytes read per step of a download. */
export const READ_BLOCK = 2 * 1024 * 1024

/**
 * A download reads its next block while this much is still queued on the socket: one block at a
 * time left the socket idle between one write and the next.
 */
export const SEND_WINDOW = 2 * READ_BLOCK

/**
 * Read buffers of finished writes, kept for the next block or download: a fresh buffer for every
 * block costs more in garbage collection (of the old generation) than reading and sending it.
 */
const spareBlocks: Buffer[] = []
const SPARE_BLOCKS_KEPT = 4

function takeBlock(): Buffer {
  return spareBlocks.pop() ?? Buffer.allocUnsafeSlow(READ_BLOCK)
}

function returnBlock(block: Buffer): void {
  if (spareBlocks.length < SPARE_BLOCKS_KEPT) spareBlocks.push(block)
}
/** One open blob file, read once, through either way; the reader closes the handle at the end. */
export class FileBlob implements OpenedBlob {
  private closed = false

  /** Reads bytes `position` up to `end` (exclusive) of the file. */
  constructor(
    private readonly handle: FileHandle,
    private position = 0,
    private readonly end = Infinity,
  ) {}

  /** Reads the next piece of at most `block.length` bytes into `block`; 0 at the end. */
  private async readInto(block: Buffer): Promise<number> {
    const want = Math.min(block.length, this.end - this.position)
    if (want <= 0) return 0
    const { bytesRead } = await this.handle.read(block, 0, want, this.position)
    this.position += bytesRead
    return bytesRead
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.handle.close()
  }

  /** The next block read into a spare buffer, with its length; 0 at the end of the file. */
  private async readBlock(): Promise<{ block: Buffer; length: number }> {
    const block = takeBlock()
    try {
      return { block, length: await this.readInto(block) }
    } catch (error) {
      returnBlock(block)
      throw error
    }
  }

  /**
   * Reads the next block while the ones before it are being sent, up to SEND_WINDOW queued on
   * `out`. A block goes back to the spares only once its write has completed, when the socket no
   * longer holds it.
   */
  async pipeTo(out: Writable, expected: number): Promise<void> {
    let next: Promise<{ block: Buffer; length: number }> | undefined = this.readBlock()
    let sent = 0
    const wrongLength = () =>
      new Error(`The stored blob does not have its recorded length of ${expected} bytes`)
    try {
      for (;;) {
        const { block, length } = await next
        next = undefined
        if (length === 0) {
          returnBlock(block)
          if (sent !== expected) throw wrongLength()
          return void out.end()
        }
        if (out.destroyed) return
        sent += length
        if (sent > expected) throw wrongLength()
        const data = length === READ_BLOCK ? block : block.subarray(0, length)
        const flowing = out.write(data, (error) => {
          if (!error) returnBlock(block)
        })
        next = this.readBlock()
        if (!flowing && out.writableLength >= SEND_WINDOW && !(await drained(out))) return
      }
    } catch (error) {
      out.destroy(error as Error)
      throw error
    } finally {
      // A read still under way finishes before its handle closes; its block is then dropped.
      await next?.catch(() => undefined)
      await this.close().catch(() => undefined)
    }
  }

  /** Reads whole blocks into fresh buffers, which the stream's consumer keeps. */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const block = Buffer.allocUnsafe(READ_BLOCK)
            const bytesRead = await this.readInto(block)
            if (bytesRead === 0) {
              await this.close()
              controller.close()
            } else {
              controller.enqueue(bytesRead === READ_BLOCK ? block : block.subarray(0, bytesRead))
            }
          } catch (error) {
            await this.close().catch(() => undefined)
            controller.error(error)
          }
        },
        cancel: () => this.close(),
      },
      { highWaterMark: 2 },
    )
  }
}
