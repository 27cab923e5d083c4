/**
 * Writing downloads to disk so that only a complete, authenticated file ever carries its real
 * name: bytes go to a hidden temporary file beside the target, which is renamed into place at
 * the end and removed on any failure. Runs of zero bytes are skipped as holes (as `cp
 * --sparse=auto` does), so a sparse file stays sparse on the way back.
 */
import { randomBytes } from 'node:crypto'
import { chmod, link, lstat, open, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

import { UsageError } from './errors.js'
import { releaseBuffer } from './record-buffers.js'

const ZEROS = new Uint8Array(1024 * 1024)

/** True when every byte of `chunk` is zero (compared a MiB at a time, which is a memcmp). */
function allZero(chunk: Uint8Array): boolean {
  for (let offset = 0; offset < chunk.length; offset += ZEROS.length) {
    const part = chunk.subarray(offset, Math.min(chunk.length, offset + ZEROS.length))
    if (
      !Buffer.from(part.buffer, part.byteOffset, part.length).equals(ZEROS.subarray(0, part.length))
    ) {
      return false
    }
  }
  return true
}

/** Writes in flight at once: decryption of the next records goes on while the disk writes. */
const WRITES_IN_FLIGHT = 4

/**
 * Writes chunks at increasing positions, leaving holes for all-zero chunks. Up to a few
 * positional writes run at once; `write` waits only when that many are pending, and a failed
 * write fails the next `write` or `finish`.
 */
export class SparseWriter {
  private position = 0
  private readonly pending = new Set<Promise<void>>()
  private failure: { error: unknown } | undefined

  constructor(private readonly handle: FileHandle) {}

  /** Bytes accepted so far (holes included). */
  get written(): number {
    return this.position
  }

  private check(): void {
    if (this.failure) throw this.failure.error
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.check()
    const at = this.position
    this.position += chunk.length
    if (chunk.length >= 4096 && allZero(chunk)) {
      releaseBuffer(chunk)
      return
    }
    const job = this.writeAt(chunk, at)
      .catch((error: unknown) => {
        this.failure ??= { error }
      })
      // The disk is the chunk's last reader: its buffer may now take the next record.
      .finally(() => releaseBuffer(chunk))
    this.pending.add(job)
    void job.finally(() => this.pending.delete(job))
    while (this.pending.size >= WRITES_IN_FLIGHT) await Promise.race(this.pending)
    this.check()
  }

  private async writeAt(chunk: Uint8Array, at: number): Promise<void> {
    for (let done = 0; done < chunk.length;) {
      const { bytesWritten } = await this.handle.write(chunk, done, chunk.length - done, at + done)
      done += bytesWritten
    }
  }

  /** Waits for every write, then sets the length (which materialises a trailing hole). */
  async finish(): Promise<void> {
    await Promise.all(this.pending)
    this.check()
    await this.handle.truncate(this.position)
  }

  /** Waits for the writes under way, ignoring their outcome (before closing on a failure). */
  async settle(): Promise<void> {
    await Promise.all(this.pending)
  }
}

/** A hidden name in the same folder (so that the final rename stays on one file system). */
export function temporaryPath(finalPath: string): string {
  return join(
    dirname(finalPath),
    `.${basename(finalPath)}.${randomBytes(4).toString('hex')}.fileshare-part`,
  )
}

/** Creates `path` exclusively (0600 until placed) and hands a writer to `fill`; removes it on failure. */
export async function writeTemporary(
  path: string,
  fill: (writer: SparseWriter) => Promise<void>,
): Promise<void> {
  const handle = await open(path, 'wx', 0o600)
  const writer = new SparseWriter(handle)
  try {
    await fill(writer)
    await writer.finish()
    await handle.close()
  } catch (error) {
    await writer.settle()
    await handle.close().catch(() => undefined)
    await rm(path, { force: true })
    throw error
  }
}

/** Copies a web stream into the writer, awaiting each write (backpressure) and reporting bytes. */
export async function pumpStream(
  stream: ReadableStream<Uint8Array>,
  writer: SparseWriter,
  onBytes?: (total: number) => void,
): Promise<void> {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      await writer.write(value)
      onBytes?.(writer.written)
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined)
    throw error
  } finally {
    reader.releaseLock()
  }
}

/** An error for a target that exists and may not be replaced. */
export function existsError(path: string): UsageError {
  return new UsageError(`${path} already exists; use --force to overwrite it`)
}

/** Whether anything (a file, a folder, a dangling link) is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

/**
 * Moves the finished temporary file to its name. Without `force` an existing name is never
 * replaced, even one that appeared during the download: a hard link fails on it atomically.
 */
export async function placeFile(
  temporary: string,
  finalPath: string,
  force: boolean,
  mode = 0o644,
): Promise<void> {
  try {
    await chmod(temporary, mode & ~process.umask() & 0o777)
    if (force) {
      const existing = await stat(finalPath).catch(() => undefined)
      if (existing?.isDirectory())
        throw new UsageError(`${finalPath} is a folder; not replacing it`)
      await rename(temporary, finalPath)
      return
    }
    try {
      await link(temporary, finalPath)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') throw existsError(finalPath)
      // File systems without hard links: check, then rename (a small window, but no clobbering
      // of anything that existed when the download began).
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV')
        throw error
      if (await pathExists(finalPath)) throw existsError(finalPath)
      await rename(temporary, finalPath)
      return
    }
    await rm(temporary, { force: true })
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}
