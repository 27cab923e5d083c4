/**
 * What `send` reads from disk: one file as a payload of its own, or several files and folders as
 * the entries of a ZIP archive the protocol package streams (`createZipStream`). Nothing is read
 * before the upload pulls it, one file at a time, in 1 MiB slices.
 */
import type { Stats } from 'node:fs'
import { lstat, open, readdir, stat } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'

import {
  createZipStream,
  encryptedSize,
  zipEntryAt,
  zipSize,
  type ArchiveEntry,
  type FileEntry,
  type FileMetadata,
  type PayloadSource,
  RECORD_SIZE,
  type SourceFingerprint,
} from '@fileshare/protocol'

import { printable, unsafeEntryName } from './entry-name.js'
import { UsageError } from './errors.js'
import { mediaTypeOf } from './media-type.js'
import { acquireBuffer, handOn } from './record-buffers.js'
import { formatBytes } from './units.js'

const READ_SIZE = RECORD_SIZE
/**
 * Metadata is encrypted padded to whole KiB and may take at most 75,000 bytes with its tag
 * (REQUEST_META_MAX_BYTES, the same for every upload); this leaves room for both.
 */
const METADATA_JSON_LIMIT = 73_000

/**
 * Reads exactly `size` bytes of the file at `path`; fails if it shrank meanwhile. With `reuse`,
 * slices are read into record buffers that the cipher and the socket hand back for the next
 * slices (record-buffers.ts); only for a stream whose chunks go straight to the cipher.
 */
export function readFileStream(
  path: string,
  size: number,
  reuse = false,
  from = 0,
): ReadableStream<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  let position = from
  const close = async () => {
    const h = handle
    handle = undefined
    await h?.close()
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        handle ??= await open(path, 'r')
        const want = Math.min(READ_SIZE, size - position)
        if (want === 0) {
          await close()
          controller.close()
          return
        }
        // Not zero-filled: only the bytes the read fills are ever handed on.
        const buffer = reuse ? acquireBuffer() : null
        const chunk = buffer ? new Uint8Array(buffer, 0, want) : Buffer.allocUnsafeSlow(want)
        const { bytesRead } = await handle.read(chunk, 0, want, position)
        if (bytesRead === 0) {
          await close()
          throw new UsageError(`${path} changed while it was being sent (it is shorter now)`)
        }
        position += bytesRead
        if (buffer) controller.enqueue(handOn(buffer, bytesRead))
        else controller.enqueue(bytesRead === want ? chunk : chunk.subarray(0, bytesRead))
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  )
}

export function fileSource(path: string, size: number): PayloadSource {
  const name = basename(path)
  return {
    size,
    stream: () => readFileStream(path, size, true),
    streamFrom: (offset) => readFileStream(path, size, true, offset),
    nameAt: () => name,
  }
}

export interface Payload {
  source: PayloadSource
  metadata: FileMetadata
  /** 1 for a single file; for an archive its number of files, at least 2 so that it reads as one. */
  fileCount: number
  /** Files in the archive (or 1), folders not counted. */
  files: number
  /** Plaintext bytes of the files themselves. */
  contentBytes: number
  /** `report.pdf`, or `photos/ and 2 more (12 files)`. */
  summary: string
  /** Paths left out (links, devices, unsafe names), already explained by `warn`. */
  skipped: string[]
  /**
   * What a resume checks the sources against (paths, sizes, times, modes, order); none for
   * standard input, which cannot be read again in another run.
   */
  fingerprint?: SourceFingerprint
}

export interface PayloadOptions {
  /**
   * The fixed zone of an archive's DOS times (ZipOptions); a resumed upload passes the one it
   * began with, so that the archive is the same bytes again.
   */
  utcOffsetMinutes?: number
}

/** The zone an archive's times are written in now: the local offset at this moment. */
export function localUtcOffsetMinutes(now = new Date()): number {
  return -now.getTimezoneOffset()
}

/**
 * Refuses a payload that `taker` (`this server`, `this request`) would refuse: more files in one
 * upload than `maxFiles`, or more than `maxEncryptedBytes` once encrypted. Answers the encrypted
 * size.
 */
export function checkPayloadFits(
  payload: Payload,
  limits: { maxFiles: number; maxEncryptedBytes: number },
  taker: string,
): number {
  if (payload.fileCount > limits.maxFiles) {
    throw new UsageError(
      `${payload.files} files are more than ${taker} takes in one upload (${limits.maxFiles})`,
    )
  }
  const cipherSize = encryptedSize(payload.source.size)
  if (cipherSize > limits.maxEncryptedBytes) {
    throw new UsageError(
      `${formatBytes(payload.source.size)} is more than ${taker} takes (${formatBytes(limits.maxEncryptedBytes)} encrypted)`,
    )
  }
  return cipherSize
}

/** Packs the paths given to `send` (or `request send`) into one payload. */
export async function preparePayload(
  paths: readonly string[],
  warn: (line: string) => void,
  options: PayloadOptions = {},
): Promise<Payload> {
  if (paths.length === 0) throw new UsageError('Name at least one file or folder to send')
  const roots = await Promise.all(paths.map(statRoot))
  if (roots.length === 1 && roots[0]!.stats.isFile()) {
    const { path, name, stats } = roots[0]!
    return {
      fingerprint: {
        entries: [{ path, size: stats.size, mtimeMs: stats.mtime.getTime(), mode: stats.mode }],
        cipherSize: encryptedSize(stats.size),
      },
      source: fileSource(path, stats.size),
      metadata: { archive: false, files: [{ name, type: mediaTypeOf(name), size: stats.size }] },
      fileCount: 1,
      files: 1,
      contentBytes: stats.size,
      summary: name,
      skipped: [],
    }
  }

  const seen = new Set<string>()
  for (const root of roots) {
    if (seen.has(root.name)) {
      throw new UsageError(`Two of the paths are both named "${root.name}"; rename one of them`)
    }
    seen.add(root.name)
  }
  const entries: ArchiveEntry[] = []
  const skipped: string[] = []
  const skip = (path: string, why: string) => {
    skipped.push(path)
    warn(`Skipped ${printable(path)}: ${why}`)
  }
  for (const root of roots) await walk(root.path, root.name, root.stats, entries, skip)

  const fileEntries = entries.filter((e) => !e.path.endsWith('/'))
  const contentBytes = fileEntries.reduce((sum, e) => sum + e.size, 0)
  const size = zipSize(entries)
  const utcOffsetMinutes = options.utcOffsetMinutes ?? localUtcOffsetMinutes()
  return {
    fingerprint: {
      entries: entries.map((e) => ({
        path: e.path,
        size: e.size,
        mtimeMs: e.mtime.getTime(),
        ...(e.mode === undefined ? {} : { mode: e.mode }),
      })),
      cipherSize: encryptedSize(size),
      utcOffsetMinutes,
    },
    source: {
      size,
      stream: () => createZipStream(entries, { utcOffsetMinutes }),
      nameAt: (start, end) => zipEntryAt(entries, start, end),
    },
    metadata: { archive: true, files: describe(entries, roots) },
    fileCount: Math.max(2, fileEntries.length),
    files: fileEntries.length,
    contentBytes,
    summary: summarize(
      roots.map((r) => (r.stats.isDirectory() ? `${r.name}/` : r.name)),
      fileEntries.length,
    ),
    skipped,
  }
}

interface Root {
  path: string
  name: string
  stats: Stats
}

async function statRoot(path: string): Promise<Root> {
  const absolute = resolve(path)
  // A path named on the command line is followed if it is a link: the user chose it.
  const stats = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new UsageError(`${path}: no such file or folder`)
    if (error.code === 'EACCES') throw new UsageError(`${path}: permission denied`)
    throw error
  })
  const name = basename(absolute)
  if (!stats.isFile() && !stats.isDirectory()) {
    throw new UsageError(`${path} is neither a file nor a folder`)
  }
  const unsafe = name === '' ? 'the root folder' : unsafeEntryName(name)
  if (unsafe !== null) throw new UsageError(`${path} cannot be sent: ${unsafe}`)
  return { path: absolute, name, stats }
}

async function walk(
  path: string,
  archivePath: string,
  stats: Stats,
  entries: ArchiveEntry[],
  skip: (path: string, why: string) => void,
): Promise<void> {
  if (stats.isDirectory()) {
    entries.push({ path: `${archivePath}/`, size: 0, mode: stats.mode, mtime: stats.mtime })
    const names = (await readdir(path)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    for (const name of names) {
      const child = join(path, name)
      const childPath = `${archivePath}/${name}`
      const unsafe = unsafeEntryName(childPath)
      if (unsafe !== null) {
        skip(child, unsafe)
        continue
      }
      // Links inside a folder are not followed: they could point anywhere, even at the folder.
      const childStats = await lstat(child)
      if (childStats.isSymbolicLink()) skip(child, 'a symbolic link')
      else if (!childStats.isFile() && !childStats.isDirectory()) skip(child, 'not a regular file')
      else await walk(child, childPath, childStats, entries, skip)
    }
    return
  }
  const size = stats.size
  entries.push({
    path: archivePath,
    size,
    mode: stats.mode,
    mtime: stats.mtime,
    open: () => readFileStream(path, size),
  })
}

/**
 * The metadata's file list: every entry, folders ending with `/`. When that is too long to
 * store, one line per path named on the command line, a folder with the total of its files.
 */
function describe(entries: readonly ArchiveEntry[], roots: readonly Root[]): FileEntry[] {
  const full = entries.map((e) => ({
    name: e.path,
    type: e.path.endsWith('/') ? '' : mediaTypeOf(e.path),
    size: e.size,
  }))
  if (Buffer.byteLength(JSON.stringify(full)) <= METADATA_JSON_LIMIT) return full
  const short = roots.map((root) => {
    if (!root.stats.isDirectory()) {
      return { name: root.name, type: mediaTypeOf(root.name), size: root.stats.size }
    }
    const prefix = `${root.name}/`
    const size = entries.reduce((sum, e) => (e.path.startsWith(prefix) ? sum + e.size : sum), 0)
    return { name: prefix, type: '', size }
  })
  if (Buffer.byteLength(JSON.stringify(short)) > METADATA_JSON_LIMIT) {
    throw new UsageError('Too many paths to list in one upload; put them in a folder and send that')
  }
  return short
}

function summarize(names: readonly string[], files: number): string {
  const counted = `${files} file${files === 1 ? '' : 's'}`
  if (names.length === 1) return `${names[0]} (${counted})`
  return `${names[0]} and ${names.length - 1} more (${counted})`
}
