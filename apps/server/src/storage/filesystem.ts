/**
 * Blobs as files under DATA_DIR/blobs. A writer fills `blobs/.partial/<key>.<random>` and commit
 * fsyncs it, renames it to `blobs/<key>` and fsyncs `blobs`, so a blob is either whole or absent,
 * even across a crash or a power loss; partial files are swept at start and by the cleanup job.
 * A resumable writer (an upload session that may continue over a new connection or after a
 * restart) writes `blobs/.partial/<key>.resume` instead, fsynced at each checkpoint, and is
 * reopened by truncating that file to the point the session continues from.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Writable } from 'node:stream'

import {
  assertBlobKey,
  CHUNK_NAME,
  chunkSessionOf,
  drained,
  LengthCheck,
  newChunkName,
  type BlobStore,
  type BlobWriter,
  type ChunkBody,
  type ResumableWriter,
  type WriterCheckpoint,
  type OpenedBlob,
  type StoredBlob,
  type StoredChunk,
} from './blob-store.js'

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

/** The suffix of a resumable writer's partial file, after its key. */
const RESUMABLE_SUFFIX = '.resume'

/** Small writes are gathered into one write call of about this size. */
const WRITE_BATCH = 1024 * 1024

/**
 * Batches of one upload in the thread pool at once: three of libuv's four threads, so a single
 * upload keeps the disk busy and a read for a download still finds a thread.
 */
export const WRITES_IN_FLIGHT = 3

/** Bytes written between two flushes of an upload's data to disk in the background. */
export const SYNC_EVERY = 16 * 1024 * 1024

export class FilesystemBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const
  private readonly root: string
  private readonly partial: string
  /** Chunks of sessions kept in the database, as `<key>.<index>.<random>`. */
  private readonly chunks: string
  private chunksMade: Promise<void> | undefined

  private constructor(dataDir: string) {
    this.root = join(dataDir, 'blobs')
    this.partial = join(this.root, '.partial')
    this.chunks = join(this.root, '.chunks')
  }

  static async open(dataDir: string): Promise<FilesystemBlobStore> {
    const store = new FilesystemBlobStore(dataDir)
    await mkdir(store.partial, { recursive: true })
    return store
  }

  /** The path of a stored chunk; its name was made by putChunk, and is checked again here. */
  private chunkPath(ref: string): string {
    if (!CHUNK_NAME.test(ref)) throw new Error(`Refusing chunk name ${JSON.stringify(ref)}`)
    return join(this.chunks, ref)
  }

  /** Chunks are files of their own, joined by copying: nothing to prepare. */
  async startChunks(): Promise<null> {
    return null
  }

  async abortChunks(): Promise<void> {}

  async putChunk(
    key: string,
    index: number,
    body: ChunkBody,
    length: number,
  ): Promise<StoredChunk> {
    const ref = newChunkName(key, index)
    const path = this.chunkPath(ref)
    // Made on first use: only sessions kept in the database store chunks.
    this.chunksMade ??= mkdir(this.chunks, { recursive: true }).then(
      () => undefined,
      (error: unknown) => {
        this.chunksMade = undefined
        throw error
      },
    )
    await this.chunksMade
    const handle = await open(path, 'wx', 0o600)
    try {
      let written = 0
      for await (const piece of body) {
        if (written + piece.length > length) throw new Error(`Chunk ${ref} passed ${length} bytes`)
        const { bytesWritten } = await handle.write(piece, 0, piece.length, written)
        if (bytesWritten !== piece.length) throw new Error(`Short write to chunk ${ref}`)
        written += piece.length
      }
      if (written !== length) throw new Error(`Chunk ${ref} has ${written} of ${length} bytes`)
      await handle.datasync()
    } catch (error) {
      await handle.close().catch(() => undefined)
      await rm(path, { force: true })
      throw error
    }
    await handle.close()
    return { ref, size: length, etag: null }
  }

  async joinChunks(key: string, chunks: readonly StoredChunk[]): Promise<void> {
    const writer = await this.create(key)
    try {
      for (const chunk of chunks) {
        const handle = await open(this.chunkPath(chunk.ref), 'r')
        try {
          let read = 0
          for (;;) {
            // A fresh buffer per block: the writer keeps what it is given until it is written.
            const block = Buffer.allocUnsafe(READ_BLOCK)
            const { bytesRead } = await handle.read(block, 0, READ_BLOCK, null)
            if (bytesRead === 0) break
            read += bytesRead
            await writer.write(block.subarray(0, bytesRead))
          }
          if (read !== chunk.size) throw new Error(`Chunk ${chunk.ref} is not ${chunk.size} bytes`)
        } finally {
          await handle.close()
        }
      }
      await writer.commit()
    } catch (error) {
      await writer.abort()
      throw error
    }
  }

  async deleteChunks(chunks: readonly StoredChunk[]): Promise<void> {
    for (const chunk of chunks) await rm(this.chunkPath(chunk.ref), { force: true })
  }

  async sweepChunks(olderThanMs: number, keep: ReadonlySet<string>): Promise<number> {
    const names = await readdir(this.chunks).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return []
      throw error
    })
    const stale = names.filter((name) => {
      const session = chunkSessionOf(name)
      return session !== null && !keep.has(session)
    })
    return removeOlder(this.chunks, stale, Date.now() - olderThanMs)
  }

  private path(key: string): string {
    assertBlobKey(key)
    return join(this.root, key)
  }

  async create(key: string): Promise<BlobWriter> {
    const target = this.path(key)
    const temp = join(this.partial, `${key}.${randomUUID()}`)
    const handle = await open(temp, 'wx', 0o600)
    return new FileWriter(handle, temp, target, 0)
  }

  /** The partial file of a resumable writer: `<key>.resume`, a name the key alone fixes. */
  private resumablePath(key: string): string {
    assertBlobKey(key)
    return join(this.partial, `${key}${RESUMABLE_SUFFIX}`)
  }

  async createResumable(key: string): Promise<ResumableWriter> {
    const temp = this.resumablePath(key)
    const handle = await open(temp, 'wx', 0o600)
    try {
      // The file's entry must survive a power loss too, or its fsynced bytes would be lost.
      await syncDirectory(this.partial)
    } catch (error) {
      await handle.close().catch(() => undefined)
      await rm(temp, { force: true })
      throw error
    }
    return new FileWriter(handle, temp, this.path(key), 0)
  }

  async reopen(key: string, _state: string, offset: number): Promise<ResumableWriter> {
    const temp = this.resumablePath(key)
    const handle = await open(temp, 'r+')
    try {
      const { size } = await handle.stat()
      if (size < offset) throw new Error(`Partial blob ${key} has ${size} of ${offset} bytes`)
      await handle.truncate(offset)
      await handle.datasync()
    } catch (error) {
      await handle.close().catch(() => undefined)
      throw error
    }
    return new FileWriter(handle, temp, this.path(key), offset)
  }

  async discardResumable(key: string): Promise<void> {
    await rm(this.resumablePath(key), { force: true })
  }

  async read(key: string): Promise<ReadableStream<Uint8Array>> {
    return (await this.open(key)).stream()
  }

  async open(key: string): Promise<OpenedBlob> {
    // Opened first so that a missing blob fails here rather than mid-response.
    return new FileBlob(await open(this.path(key), 'r'))
  }

  async openRange(key: string, start: number, end: number): Promise<OpenedBlob> {
    return new FileBlob(await open(this.path(key), 'r'), { start, end })
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
    // Partial files are named `<key>.<random>`.
    const names = await readdir(this.partial)
    const unkept = names.filter((name) => !keep.has(name.split('.')[0] ?? ''))
    return removeOlder(this.partial, unkept, Date.now() - olderThanMs)
  }

  /**
   * Creates and removes an empty file where uploads are written: a folder that is gone, not a
   * folder, read-only or on a read-only filesystem fails here as an upload would.
   */
  async check(): Promise<void> {
    // Named like a partial blob (`<key>.<random>`) with no key, so a leftover is swept as one.
    const probe = join(this.partial, `.${randomUUID()}`)
    const handle = await open(probe, 'wx')
    await handle.close()
    await rm(probe)
  }
}

/**
 * Writes gathered batches at their offsets, with up to WRITES_IN_FLIGHT of them in the thread
 * pool at once: a batch is handed over while the ones before it are still being written, so the
 * socket that feeds the writer is not read in lockstep with the disk. Every SYNC_EVERY bytes the
 * file's data so far is flushed to disk in the background, so that the commit's fsync waits for
 * the last stretch only. The first failure of any of these fails the next write and the commit.
 */
class FileWriter implements ResumableWriter {
  bytesWritten: number
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  private readonly inFlight = new Set<Promise<void>>()
  private syncing: Promise<void> | undefined
  private syncedUpTo: number
  private failure: { error: unknown } | undefined
  private closed = false

  constructor(
    private readonly handle: FileHandle,
    private readonly temp: string,
    private readonly target: string,
    /** Where writing starts: 0, or the durable point a resumed writer continues from. */
    start: number,
  ) {
    this.bytesWritten = start
    this.syncedUpTo = start
  }

  durable(): WriterCheckpoint {
    return { offset: this.syncedUpTo, state: '' }
  }

  private durableListener: (() => void) | undefined

  onDurable(listener: () => void): void {
    this.durableListener = listener
  }

  readonly reopensAnywhere = true

  /** Waits for the batches under way now (not those started later), then flushes to disk. */
  async checkpoint(): Promise<WriterCheckpoint> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.startBatch()
    const upTo = this.position
    await Promise.all([...this.inFlight])
    this.throwFailure()
    await this.handle.datasync()
    this.syncedUpTo = Math.max(this.syncedUpTo, upTo)
    return { offset: upTo, state: '' }
  }

  async suspend(sync: boolean): Promise<WriterCheckpoint> {
    if (this.closed) throw new Error('Blob writer is closed')
    try {
      if (sync) {
        // Everything received: the batches started meanwhile too.
        this.startBatch()
        await this.settle()
        return await this.checkpoint()
      }
      this.pending = []
      this.pendingBytes = 0
      await this.settle()
      return this.durable()
    } finally {
      this.closed = true
      await this.settle()
      await this.handle.close().catch(() => undefined)
    }
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.throwFailure()
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
    this.bytesWritten += chunk.length
    if (this.pendingBytes < WRITE_BATCH) return
    this.startBatch()
    while (this.inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(this.inFlight)
    this.throwFailure()
  }

  private throwFailure(): void {
    if (this.failure) throw this.failure.error
  }

  private fail(error: unknown): void {
    this.failure ??= { error }
  }

  /** Bytes handed to the thread pool so far: where the next batch goes in the file. */
  private get position(): number {
    return this.bytesWritten - this.pendingBytes
  }

  /** Hands the gathered chunks to the thread pool as one write at their place in the file. */
  private startBatch(): void {
    const buffers = this.pending
    const position = this.position
    const length = this.pendingBytes
    this.pending = []
    this.pendingBytes = 0
    if (buffers.length === 0) return
    const write: Promise<void> = this.handle
      .writev(buffers, position)
      .then(({ bytesWritten }) => {
        // A regular file takes a whole write or fails; a short one would leave a hole.
        if (bytesWritten !== length) throw new Error(`Wrote ${bytesWritten} of ${length} bytes`)
      })
      .then(
        () => this.startBackgroundSync(),
        (error: unknown) => this.fail(error),
      )
      .finally(() => this.inFlight.delete(write))
    this.inFlight.add(write)
  }

  /** Flushes what is written to disk once SYNC_EVERY more bytes are, one flush at a time. */
  private startBackgroundSync(): void {
    if (this.syncing || this.closed || this.position - this.syncedUpTo < SYNC_EVERY) return
    const upTo = this.position
    this.syncing = this.handle.datasync().then(
      () => {
        this.syncedUpTo = upTo
        this.syncing = undefined
        this.durableListener?.()
      },
      (error: unknown) => {
        this.fail(error)
        this.syncing = undefined
      },
    )
  }

  /** Waits for every write and flush under way; failures are kept, not thrown. */
  private async settle(): Promise<void> {
    while (this.inFlight.size > 0 || this.syncing) {
      await Promise.all([...this.inFlight, this.syncing])
    }
  }

  async commit(): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.closed = true
    let renamed = false
    try {
      this.startBatch()
      await this.settle()
      this.throwFailure()
      await this.handle.sync()
      await this.handle.close()
      await rename(this.temp, this.target)
      renamed = true
      await syncDirectory(dirname(this.target))
    } catch (error) {
      await this.settle()
      await this.handle.close().catch(() => undefined)
      await rm(renamed ? this.target : this.temp, { force: true })
      throw error
    }
  }

  async abort(): Promise<void> {
    const wasOpen = !this.closed
    this.closed = true
    this.pending = []
    await this.settle()
    if (wasOpen) await this.handle.close().catch(() => undefined)
    await rm(this.temp, { force: true })
  }
}

/**
 * Flushes a directory's entries to disk. A rename is durable only once its directory is: without
 * this, a power loss after the upload's record was committed could bring the blob back under its
 * partial name, and the record would point at nothing.
 */
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** One open blob file, read once, through either way; the reader closes the handle at the end. */
class FileBlob implements OpenedBlob {
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

/** Removes the files `names` of `dir` last modified at or before `cutoff`; answers how many. */
async function removeOlder(dir: string, names: readonly string[], cutoff: number): Promise<number> {
  let removed = 0
  for (const name of names) {
    const path = join(dir, name)
    const info = await stat(path).catch(() => null)
    if (info && info.mtimeMs <= cutoff) {
      await rm(path, { force: true })
      removed++
    }
  }
  return removed
}
