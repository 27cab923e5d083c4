/**
 * Blobs as files under DATA_DIR/blobs. A writer fills `blobs/.partial/<key>.<random>` and commit
 * fsyncs it, renames it to `blobs/<key>` and fsyncs `blobs`, so a blob is either whole or absent,
 * even across a crash or a power loss; partial files are swept at start and by the cleanup job.
 * A resumable writer (an upload session that may continue over a new connection or after a
 * restart) writes `blobs/.partial/<key>.resume` instead, fsynced at each checkpoint, and is
 * reopened by truncating that file to the point the session continues from.
 * May touch: the file system (DATA_DIR/blobs).
 */
import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

import {
  assertBlobKey,
  CHUNK_NAME,
  chunkSessionOf,
  newChunkName,
  type BlobStore,
  type BlobWriter,
  type ChunkBody,
  type ResumableWriter,
  type OpenedBlob,
  type StoredBlob,
  type StoredChunk,
} from './blob-store.js'
import { FileBlob, READ_BLOCK } from './filesystem-reader.js'
import { FileWriter, syncDirectory } from './filesystem-writer.js'

/** The suffix of a resumable writer's partial file, after its key. */
const RESUMABLE_SUFFIX = '.resume'
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
