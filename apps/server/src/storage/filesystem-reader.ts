/**
 * Reading a blob file under DATA_DIR/blobs (filesystem.ts) for a download: block by block into a
 * socket with a bounded window, or as a web stream, from reused read buffers.
 * May touch: the file system (the blob file handle it is given).
 */
import { type FileHandle } from 'node:fs/promises'
import type { Writable } from 'node:stream'

import { drained, LengthCheck, type OpenedBlob } from './blob-store.js'

/** Bytes read per step of a download. */
export const READ_BLOCK = 2 * 1024 * 1024

/**
 * A download reads its next block while this much is still queued on the socket, and waits for
 * the socket to drain below it: the socket always has the next bytes ready, and a download holds
 * at most this much plus two blocks (8 MiB). One block at a time left the socket idle between
 * the end of one write and the next; on loopback the window sends about a quarter faster.
 */
export const SEND_WINDOW = 2 * READ_BLOCK

/**
 * Read buffers of finished writes, kept for the next block or download. A fresh buffer for
 * every block costs more in garbage collection than reading and sending it (after the server has
 * been idle, V8 collects the old generation for every few such buffers); a few kept buffers make
 * a download allocate nothing per block.
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
  /** Where the next read starts, or null to read on from the file's own position. */
  private position: number | null
  private readonly end: number

  /** `range` limits the reads to bytes `start` up to `end` (exclusive) of the file. */
  constructor(
    private readonly handle: FileHandle,
    range?: { start: number; end: number },
  ) {
    this.position = range?.start ?? null
    this.end = range?.end ?? Infinity
  }

  /** Reads the next piece of at most `block.length` bytes into `block`; 0 at the end. */
  private async readInto(block: Buffer): Promise<number> {
    if (this.position === null) {
      return (await this.handle.read(block, 0, block.length, null)).bytesRead
    }
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
   * `out` (or its own high-water mark, when that is larger). A block goes back to the spares
   * only once its write has completed, when the socket no longer holds it; a failed or
   * abandoned write leaves it to the garbage collector.
   */
  async pipeTo(out: Writable, expected: number): Promise<void> {
    let next: Promise<{ block: Buffer; length: number }> | undefined = this.readBlock()
    const count = new LengthCheck(expected)
    try {
      for (;;) {
        const { block, length } = await next
        next = undefined
        if (length === 0) {
          returnBlock(block)
          count.end()
          return void out.end()
        }
        if (out.destroyed) return
        count.add(length)
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
