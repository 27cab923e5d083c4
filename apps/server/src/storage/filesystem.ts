/**
 * Blobs as files under DATA_DIR/blobs. A writer fills `blobs/.partial/<key>.<random>` and commit
 * fsyncs it and renames it to `blobs/<key>`, so a blob is either whole or absent, even across a
 * crash; partial files are swept at start and by the cleanup job.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'

import { assertBlobKey, type BlobStore, type BlobWriter, type StoredBlob } from './blob-store.js'

/** Bytes read per step of a download stream. */
const READ_BLOCK = 1024 * 1024

/** Small writes are gathered into one write call of about this size. */
const WRITE_BATCH = 1024 * 1024

export class FilesystemBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const
  private readonly root: string
  private readonly partial: string

  private constructor(dataDir: string) {
    this.root = join(dataDir, 'blobs')
    this.partial = join(this.root, '.partial')
  }

  static async open(dataDir: string): Promise<FilesystemBlobStore> {
    const store = new FilesystemBlobStore(dataDir)
    await mkdir(store.partial, { recursive: true })
    return store
  }

  private path(key: string): string {
    assertBlobKey(key)
    return join(this.root, key)
  }

  async create(key: string): Promise<BlobWriter> {
    const target = this.path(key)
    const temp = join(this.partial, `${key}.${randomUUID()}`)
    const handle = await open(temp, 'wx', 0o600)
    return new FileWriter(handle, temp, target)
  }

  async read(key: string): Promise<ReadableStream<Uint8Array>> {
    const path = this.path(key)
    // Open first so that a missing blob fails here rather than mid-response.
    const handle = await open(path, 'r')
    let closed = false
    const close = async () => {
      if (closed) return
      closed = true
      await handle.close()
    }
    // Reads whole blocks straight into fresh buffers: cheaper per byte than adapting a Node
    // stream, and the stream owns the handle, closing it once at the end or on cancel.
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const block = Buffer.allocUnsafe(READ_BLOCK)
            const { bytesRead } = await handle.read(block, 0, READ_BLOCK, null)
            if (bytesRead === 0) {
              await close()
              controller.close()
            } else {
              controller.enqueue(bytesRead === READ_BLOCK ? block : block.subarray(0, bytesRead))
            }
          } catch (error) {
            await close().catch(() => undefined)
            controller.error(error)
          }
        },
        cancel: close,
      },
      { highWaterMark: 2 },
    )
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true })
  }

  async *list(): AsyncIterable<StoredBlob> {
    for (const entry of await readdir(this.root, { withFileTypes: true })) {
      if (!entry.isFile()) continue
      try {
        assertBlobKey(entry.name)
      } catch {
        continue
      }
      const info = await stat(join(this.root, entry.name)).catch(() => null)
      if (info) yield { key: entry.name, size: info.size, modifiedAt: info.mtimeMs }
    }
  }

  async sweepUnfinished(
    olderThanMs: number,
    keep: ReadonlySet<string> = new Set(),
  ): Promise<number> {
    let removed = 0
    const cutoff = Date.now() - olderThanMs
    for (const name of await readdir(this.partial)) {
      // Partial files are named `<key>.<random>`.
      if (keep.has(name.split('.')[0] ?? '')) continue
      const path = join(this.partial, name)
      const info = await stat(path).catch(() => null)
      if (info && info.mtimeMs <= cutoff) {
        await rm(path, { force: true })
        removed++
      }
    }
    return removed
  }

  async check(): Promise<void> {
    await stat(this.partial)
  }
}

class FileWriter implements BlobWriter {
  bytesWritten = 0
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  private closed = false

  constructor(
    private readonly handle: FileHandle,
    private readonly temp: string,
    private readonly target: string,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
    this.bytesWritten += chunk.length
    if (this.pendingBytes >= WRITE_BATCH) await this.flush()
  }

  private async flush(): Promise<void> {
    const buffers = this.pending
    this.pending = []
    this.pendingBytes = 0
    if (buffers.length > 0) await this.handle.writev(buffers)
  }

  async commit(): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.closed = true
    try {
      await this.flush()
      await this.handle.sync()
      await this.handle.close()
      await rename(this.temp, this.target)
    } catch (error) {
      await this.handle.close().catch(() => undefined)
      await rm(this.temp, { force: true })
      throw error
    }
  }

  async abort(): Promise<void> {
    const wasOpen = !this.closed
    this.closed = true
    this.pending = []
    if (wasOpen) await this.handle.close().catch(() => undefined)
    await rm(this.temp, { force: true })
  }
}
