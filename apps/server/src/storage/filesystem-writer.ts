/**
 * The writer of a blob file under DATA_DIR/blobs/.partial (filesystem.ts): batched writes at
 * their offsets in the thread pool, so the socket that feeds it is not read in lockstep with the
 * disk; background flushes, so that the commit's fsync waits for the last stretch only; the
 * checkpoints of a resumable writer; a commit that fsyncs, renames and fsyncs the folder.
 * May touch: the file system (the partial file and folders it is given).
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'

import { type ResumableWriter, type WriterCheckpoint } from './blob-store.js'

/** Small writes are gathered into one write call of about this size. */
export const WRITE_BATCH = 1024 * 1024

/** Batches of one upload in the thread pool at once: a download's read still finds a thread. */
export const WRITES_IN_FLIGHT = 3

/** Bytes written between two flushes of an upload's data to disk in the background. */
export const SYNC_EVERY = 16 * 1024 * 1024
/** The first failure of a write or a flush fails the next write and the commit. */
export class FileWriter implements ResumableWriter {
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

  async suspend(sync: boolean): Promise<WriterCheckpoint> {
    if (this.closed) throw new Error('Blob writer is closed')
    try {
      if (sync) this.startBatch()
      else {
        this.pending = []
        this.pendingBytes = 0
      }
      await this.settle()
      if (sync) {
        this.throwFailure()
        await this.handle.datasync()
        this.syncedUpTo = this.position
      }
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
        (error: unknown) => void (this.failure ??= { error }),
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
        this.failure ??= { error }
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
 * Flushes a directory's entries to disk: a rename is durable only once its directory is, or a
 * power loss could bring a recorded blob back under its partial name.
 */
export async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}
