/**
 * Blobs as files under DATA_DIR/blobs. A writer fills `blobs/.partial/<key>.<random>` and commit
 * fsyncs it, renames it to `blobs/<key>` and fsyncs `blobs`, so a blob is either whole or absent,
 * even across a crash or a power loss; partial files are swept at start and by the cleanup job.
 * A resumable writer (an upload session that may continue over a new connection or after a
 * restart) writes `blobs/.partial/<key>.resume` instead, fsynced at each checkpoint, and is
 * reopened by truncating that file to the point the session continues from.
 * Chunks of sessions kept in the database go into `blobs/.chunks`: those of the stride the server
 * asks for in place in the session's one file (filesystem-inplace.ts), which a join renames into
 * place when they tile the blob; any other as `<key>.<index>.<random>`, joined by copying.
 * May touch: the file system (DATA_DIR/blobs).
 */
import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'

import {
  assertBlobKey,
  CHUNK_NAME,
  isBlobKey,
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
import {
  decodeInPlaceRef,
  decodeLayout,
  encodeLayout,
  inPlaceRef,
  placeOf,
  SessionGates,
  type Gate,
  sessionFileName,
  sessionOfFile,
  type InPlaceLayout,
} from './filesystem-inplace.js'
import { FileWriter, syncDirectory, WRITE_BATCH } from './filesystem-writer.js'

export class FilesystemBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const
  private readonly root: string
  private readonly partial: string
  private readonly chunks: string
  private readonly gates = new SessionGates<FileHandle>()
  /** Sessions whose file is being flushed in the background, one flush per session at most. */
  private readonly flushing = new Set<string>()

  private constructor(dataDir: string) {
    this.root = join(dataDir, 'blobs')
    this.partial = join(this.root, '.partial')
    this.chunks = join(this.root, '.chunks')
  }

  /** The folder of chunks is made on first use: only sessions kept in the database have chunks. */
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

  private sessionPath(key: string): string {
    return join(this.chunks, sessionFileName(key))
  }

  /** Creates the session's file, as long as its blob and durable with its folder entry. */
  async startChunks(key: string, size: number, chunkSize: number): Promise<string> {
    const state = encodeLayout({ size, chunkSize })
    await mkdir(this.chunks, { recursive: true })
    await createFile(this.sessionPath(key), async (handle) => {
      await handle.truncate(size)
      await handle.sync()
      await handle.close()
      await syncDirectory(this.chunks)
    })
    return state
  }

  /** Removes the session file once no write of this process goes into it any more. */
  async abortChunks(key: string, upload: string): Promise<void> {
    decodeLayout(upload)
    const path = this.sessionPath(key)
    await this.gates.close(key)
    try {
      await rm(path, { force: true })
    } finally {
      this.gates.forget(key)
    }
  }

  /** Writes a chunk that fits the session's stride in place, and any other into its own file. */
  async putChunk(
    key: string,
    index: number,
    body: ChunkBody,
    length: number,
    upload: string | null,
    durable = true,
  ): Promise<StoredChunk> {
    const offset = upload === null ? null : placeOf(decodeLayout(upload), index, length)
    if (offset !== null) return this.putInPlace(key, index, body, length, offset, durable)
    const ref = newChunkName(key, index)
    await mkdir(this.chunks, { recursive: true })
    const handle = await createFile(this.chunkPath(ref), (handle) =>
      writeBody(handle, ref, body, length, 0, durable, (write) => write()),
    )
    await handle.close()
    return { ref, size: length, etag: null }
  }

  /** A failed body leaves its region as it is: nothing records it, and a retry writes it again. */
  private async putInPlace(
    key: string,
    index: number,
    body: ChunkBody,
    length: number,
    offset: number,
    durable: boolean,
  ): Promise<StoredChunk> {
    const ref = inPlaceRef(key, index)
    const gate = this.gates.enter(key)
    try {
      const handle = await this.sessionFile(key, gate)
      await writeBody(handle, ref, body, length, offset, durable, (write) =>
        this.gates.writeInTurn(gate, key, write),
      )
    } finally {
      await this.gates.leave(key, gate)
    }
    if (!durable) this.flushInBackground(key)
    return { ref, size: length, etag: null }
  }

  /**
   * The session file the writers in `gate` share, opened without creating it: a session joined or
   * discarded has no file any more.
   */
  private sessionFile(key: string, gate: Gate<FileHandle>) {
    return this.gates.file(gate, () => open(this.sessionPath(key), 'r+'))
  }

  /**
   * Starts flushing session `key`'s file to disk unless a flush of it is under way, so that the
   * join's sync waits for the last stretch only; a failure is left to that sync to find. The flush
   * is one more writer in the session's gate, sharing its open file.
   */
  private flushInBackground(key: string): void {
    if (this.flushing.has(key)) return
    this.flushing.add(key)
    const gate = this.gates.enter(key)
    void (async () => {
      try {
        const handle = await this.sessionFile(key, gate)
        await this.gates.pass(gate, key, () => handle.datasync())
      } catch {
        // Left to the join's sync, which fails the session if the file cannot be made durable.
      } finally {
        this.flushing.delete(key)
        await this.gates.leave(key, gate)
      }
    })()
  }

  /**
   * Renames the session file into place when the chunks all lie in it and tile the blob in order,
   * and copies their bytes into a new blob otherwise; either way the session file is gone after.
   */
  async joinChunks(
    key: string,
    chunks: readonly StoredChunk[],
    upload: string | null,
  ): Promise<void> {
    const layout = upload === null ? null : decodeLayout(upload)
    if (layout === null) return this.copyChunks(key, chunks, null)
    await this.gates.close(key)
    try {
      if (tilesInPlace(key, chunks, layout)) await this.renameSession(key, layout)
      else {
        await this.copyChunks(key, chunks, layout)
        await rm(this.sessionPath(key), { force: true })
      }
    } finally {
      this.gates.forget(key)
    }
  }

  private async renameSession(key: string, layout: InPlaceLayout): Promise<void> {
    const source = this.sessionPath(key)
    const target = this.path(key)
    const handle = await open(source, 'r+')
    try {
      const { size } = await handle.stat()
      if (size !== layout.size) throw new Error(`Session file ${key} is not ${layout.size} bytes`)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(source, target)
    try {
      await syncDirectory(this.root)
    } catch (error) {
      await rm(target, { force: true })
      throw error
    }
  }

  private async copyChunks(
    key: string,
    chunks: readonly StoredChunk[],
    layout: InPlaceLayout | null,
  ): Promise<void> {
    const writer = await this.create(key)
    let session: FileHandle | undefined
    try {
      for (const chunk of chunks) {
        const inPlace = decodeInPlaceRef(chunk.ref)
        if (inPlace === null) {
          const handle = await open(this.chunkPath(chunk.ref), 'r')
          try {
            // A file longer than its record is as damaged as a shorter one.
            if ((await handle.stat()).size !== chunk.size) throw wrongSize(chunk)
            await copyRange(handle, 0, chunk, writer)
          } finally {
            await handle.close()
          }
          continue
        }
        const offset = layout === null ? null : placeOf(layout, inPlace.index, chunk.size)
        if (inPlace.key !== key || offset === null) {
          throw new Error(`Refusing chunk ${JSON.stringify(chunk.ref)} for blob ${key}`)
        }
        session ??= await open(this.sessionPath(key), 'r')
        await copyRange(session, offset, chunk, writer)
      }
      await writer.commit()
    } catch (error) {
      await writer.abort()
      throw error
    } finally {
      await session?.close()
    }
  }

  /** Removes chunks stored in files of their own; in-place chunks go with their session file. */
  async deleteChunks(chunks: readonly StoredChunk[]): Promise<void> {
    for (const chunk of chunks) {
      if (decodeInPlaceRef(chunk.ref) === null) await rm(this.chunkPath(chunk.ref), { force: true })
    }
  }

  async sweepChunks(olderThanMs: number, keep: ReadonlySet<string>): Promise<number> {
    const names = await readdir(this.chunks).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return []
      throw error
    })
    const stale = names.filter((name) => {
      const session = chunkSessionOf(name) ?? sessionOfFile(name)
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
    return join(this.partial, `${key}.resume`)
  }

  async createResumable(key: string): Promise<ResumableWriter> {
    const temp = this.resumablePath(key)
    // The file's entry must survive a power loss too, or its fsynced bytes would be lost.
    const handle = await createFile(temp, () => syncDirectory(this.partial))
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

  async open(key: string, bounds?: { start: number; end: number }): Promise<OpenedBlob> {
    // Opened first so that a missing blob fails here rather than mid-response.
    return new FileBlob(await open(this.path(key), 'r'), bounds?.start, bounds?.end)
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true })
  }

  async *list(): AsyncIterable<StoredBlob> {
    for (const entry of await readdir(this.root, { withFileTypes: true })) {
      if (!entry.isFile() || !isBlobKey(entry.name)) continue
      const info = await stat(join(this.root, entry.name)).catch(() => null)
      if (info) yield { key: entry.name, size: info.size, modifiedAt: info.mtimeMs }
    }
  }

  async sweepUnfinished(olderThanMs: number, keep: ReadonlySet<string>): Promise<number> {
    // Partial files are named `<key>.<random>`.
    const names = await readdir(this.partial)
    const unkept = names.filter((name) => !keep.has(name.split('.')[0] ?? ''))
    return removeOlder(this.partial, unkept, Date.now() - olderThanMs)
  }

  /** Creates and removes an empty file where uploads are written, failing as an upload would. */
  async check(): Promise<void> {
    // Named like a partial blob (`<key>.<random>`) with no key, so a leftover is swept as one.
    const probe = join(this.partial, `.${randomUUID()}`)
    const handle = await open(probe, 'wx')
    await handle.close()
    await rm(probe)
  }
}

/** Whether `chunks` all lie in session `key`'s file and tile its blob, in order, from byte 0. */
function tilesInPlace(key: string, chunks: readonly StoredChunk[], layout: InPlaceLayout): boolean {
  let end = 0
  for (const [index, chunk] of chunks.entries()) {
    const inPlace = decodeInPlaceRef(chunk.ref)
    if (inPlace?.key !== key || inPlace.index !== index) return false
    if (placeOf(layout, index, chunk.size) !== end) return false
    end += chunk.size
  }
  return end === layout.size
}

/**
 * Writes a chunk's body at `offset` of `handle` through `pass` (the session's gate, or none),
 * failing when it does not bring exactly `length` bytes; durable once it resolves when `durable`.
 */
async function writeBody(
  handle: FileHandle,
  ref: string,
  body: ChunkBody,
  length: number,
  offset: number,
  /** Whether the bytes are synced before it resolves; otherwise the join syncs the file. */
  durable: boolean,
  pass: (write: () => Promise<unknown>) => Promise<unknown>,
): Promise<void> {
  let received = 0
  let batch: Uint8Array[] = []
  let batchBytes = 0
  let at = offset
  let busy = false
  // Writes what has arrived at once, and what arrives meanwhile in one write after it: a body
  // that stalls holds nothing back, and one that streams is not held up by each write.
  const writeAll = async () => {
    busy = true
    try {
      while (batchBytes > 0) {
        const buffers = batch
        const size = batchBytes
        const position = at
        batch = []
        batchBytes = 0
        at += size
        await pass(async () => {
          const { bytesWritten } = await handle.writev(buffers, position)
          if (bytesWritten !== size) throw new Error(`Short write to chunk ${ref}`)
        })
      }
    } finally {
      busy = false
    }
  }
  let writing: Promise<void> = Promise.resolve()
  try {
    for await (const piece of body) {
      if (received + piece.length > length) throw new Error(`Chunk ${ref} passed ${length} bytes`)
      received += piece.length
      batch.push(piece)
      batchBytes += piece.length
      if (!busy) {
        writing = writeAll()
        // Awaited below; a failure must not go unheard meanwhile.
        writing.catch(() => undefined)
      } else if (batchBytes >= WRITE_BATCH) await writing
    }
  } catch (error) {
    // The write under way ends before the caller closes the file or leaves the session's gate.
    await writing.catch(() => undefined)
    throw error
  }
  await writing
  if (received !== length) throw new Error(`Chunk ${ref} has ${received} of ${length} bytes`)
  if (durable) await handle.datasync()
}

/** Copies `chunk.size` bytes from `start` of `handle` into `writer`; fails on fewer. */
async function copyRange(
  handle: FileHandle,
  start: number,
  chunk: StoredChunk,
  writer: BlobWriter,
): Promise<void> {
  let read = 0
  while (read < chunk.size) {
    // A fresh buffer per block: the writer keeps what it is given until it is written.
    const block = Buffer.allocUnsafe(Math.min(READ_BLOCK, chunk.size - read))
    const { bytesRead } = await handle.read(block, 0, block.length, start + read)
    if (bytesRead === 0) break
    read += bytesRead
    await writer.write(block.subarray(0, bytesRead))
  }
  if (read !== chunk.size) throw wrongSize(chunk)
}

const wrongSize = (chunk: StoredChunk) => new Error(`Chunk ${chunk.ref} is not ${chunk.size} bytes`)

/** Creates the file `path` and runs `prepare` on it; a failure closes and removes it again. */
async function createFile(
  path: string,
  prepare: (handle: FileHandle) => Promise<unknown>,
): Promise<FileHandle> {
  const handle = await open(path, 'wx', 0o600)
  try {
    await prepare(handle)
  } catch (error) {
    await handle.close().catch(() => undefined)
    await rm(path, { force: true })
    throw error
  }
  return handle
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
