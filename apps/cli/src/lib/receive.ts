/**
 * Puts a decrypted download on disk: a single file under its own name, an archive extracted into
 * the folder, or into a new folder of its own when its entries are not all under one top-level
 * folder (archive-layout.ts). Names come from the sender's metadata and are checked like archive entries. Only a
 * complete, authenticated download ever gets a real name (see save.ts), so a failed or tampered
 * one leaves nothing that looks finished.
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, rm } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'

import { requireServerId, type DownloadResult, type FileMetadata } from '@fileshare/protocol'

import { checkHiddenTopLevel, isUnderOneFolder } from './archive-layout.js'
import { unsafeEntryName } from './entry-name.js'
import { UsageError } from './errors.js'
import { extractArchive } from './extract.js'
import type { Output } from './output.js'
import { existsError, placeFile, pumpStream, temporaryPath, writeTemporary } from './save.js'

export interface Destination {
  /** Folder the download goes into; created if missing. */
  dir: string
  force: boolean
  /** false: save an archive as a .zip file instead of extracting it. */
  extract?: boolean
}

export interface Received {
  archive: boolean
  /** Absolute paths written: the file, or every file and folder of the archive. */
  paths: string[]
  /** The new folder an archive was extracted into (absolute), or null. */
  folder: string | null
  /** What to show: the file, or the archive's top-level names (inside `folder` when set). */
  shown: string[]
  bytes: number
}

/** The start of an upload's id, for names made from it; only ever a UUID's hex digits. */
function shortId(id: string): string {
  return requireServerId(id, 'upload').slice(0, 8)
}

/** Whether the payload is an archive: the metadata says so, else more than one file. */
export function isArchive(metadata: FileMetadata | null, fileCount: number): boolean {
  return metadata?.archive ?? fileCount > 1
}

/** The name of an archive saved unextracted: its one top-level folder, else from the id. */
export function archiveFileName(metadata: FileMetadata | null, id: string): string {
  const tops = new Set(metadata?.files.map((f) => f.name.split('/')[0] ?? '') ?? [])
  const [only] = tops
  const single = tops.size === 1 && metadata?.files.every((f) => f.name.includes('/'))
  return single && only && unsafeEntryName(only) === null
    ? `${only}.zip`
    : `fileshare-${shortId(id)}.zip`
}

/** The single file's name from the metadata, reduced to a safe last segment. */
export function singleFileName(metadata: FileMetadata | null, id: string): string {
  const name = metadata?.files[0]?.name.split('/').pop() ?? ''
  return name !== '' && unsafeEntryName(name) === null ? name : `fileshare-${shortId(id)}`
}

/** The name of the new folder an archive gets when it has more than one top-level name. */
export function archiveFolderName(id: string): string {
  return `fileshare-${shortId(id)}`
}

/**
 * Fails before the download is counted when a name it will write already exists (without
 * `force`), or an archive has a hidden top-level name. Archives are checked again entry by
 * entry when extracted: the metadata is the sender's word for what the archive holds.
 */
export async function checkDestination(
  metadata: FileMetadata | null,
  fileCount: number,
  id: string,
  destination: Destination,
): Promise<void> {
  const dir = resolve(destination.dir)
  const existing = await lstat(dir).catch(() => null)
  if (existing !== null && !existing.isDirectory()) {
    throw new UsageError(`${destination.dir} is not a folder`)
  }
  const archive = isArchive(metadata, fileCount)
  const extracted = archive && destination.extract !== false
  const entryNames = metadata?.files.map((f) => f.name) ?? []
  if (extracted) checkHiddenTopLevel(entryNames, destination.force)
  const names = !archive
    ? [singleFileName(metadata, id)]
    : !extracted
      ? [archiveFileName(metadata, id)]
      : // Anything else goes into a new folder, which exists nowhere yet.
        isUnderOneFolder(entryNames)
        ? entryNames
        : []
  for (const name of names) {
    if (unsafeEntryName(name) !== null) continue
    const path = join(dir, ...name.split('/').filter((p) => p !== ''))
    const stats = await lstat(path).catch(() => null)
    if (stats === null) continue
    if (name.endsWith('/')) {
      if (!stats.isDirectory()) throw new UsageError(`${path} exists and is not a folder`)
    } else if (stats.isDirectory()) {
      throw new UsageError(`${path} exists and is a folder`)
    } else if (!destination.force) {
      throw existsError(path)
    }
  }
}

export async function receive(
  download: DownloadResult,
  metadata: FileMetadata | null,
  id: string,
  destination: Destination,
  output: Output,
): Promise<Received> {
  const dir = resolve(destination.dir)
  await mkdir(dir, { recursive: true })
  const bar = output.progress('Downloading', download.plainSize)
  try {
    const archive = isArchive(metadata, download.fileCount)
    if (!archive || destination.extract === false) {
      const name = archive ? archiveFileName(metadata, id) : singleFileName(metadata, id)
      const path = join(dir, name)
      const temporary = temporaryPath(path)
      await writeTemporary(temporary, (writer) =>
        pumpStream(download.stream, writer, (n) => bar.update(n)),
      )
      bar.stop()
      await placeFile(temporary, path, destination.force)
      return { archive, paths: [path], folder: null, shown: [name], bytes: download.plainSize }
    }
    const zipPath = join(
      dir,
      `.fileshare-${shortId(id)}-${randomBytes(4).toString('hex')}.zip.fileshare-part`,
    )
    try {
      await writeTemporary(zipPath, (writer) =>
        pumpStream(download.stream, writer, (n) => bar.update(n)),
      )
      bar.stop()
      const extracting = output.progress('Extracting ', download.plainSize)
      try {
        const { folder, entries } = await extractArchive(zipPath, dir, {
          force: destination.force,
          folderName: archiveFolderName(id),
          onBytes: (n) => extracting.update(n),
        })
        const shown = new Set<string>()
        for (const entry of entries) {
          const [top = '', ...rest] = relative(folder ?? dir, entry.path).split(sep)
          shown.add(rest.length > 0 || entry.directory ? `${top}/` : top)
        }
        const paths = entries.map((e) => e.path)
        return { archive: true, paths, folder, shown: [...shown], bytes: download.plainSize }
      } finally {
        extracting.stop()
      }
    } finally {
      await rm(zipPath, { force: true })
    }
  } catch (error) {
    // A stream never read (a failure before the first byte) still holds the connection open.
    await download.stream.cancel(error).catch(() => undefined)
    throw error
  } finally {
    bar.stop()
  }
}
