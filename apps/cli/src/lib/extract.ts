/**
 * Extracts a downloaded ZIP archive into a folder, refusing the whole archive before writing
 * anything when one entry could escape the folder or is not a plain file or folder: `..`
 * segments, absolute paths, backslashes, symbolic links, device files, FIFOs, sockets, duplicate
 * names. Existing files are kept unless `force`; nothing is ever written through an existing
 * symbolic link. Every file is first written under a temporary name, and checked against the
 * archive's CRC-32; only when all of them are complete are they renamed into place, so an
 * archive that turns out damaged halfway leaves nothing behind and replaces nothing. The archive
 * is read by the protocol's ZIP reader, from a file or in place on the server (FileRanges).
 */
import { lstat, mkdir, rm, rmdir, utimes, chmod } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

import {
  openZipEntry,
  ProtocolError,
  readZipDirectory,
  type ArchiveBytes,
  type ZipDirectory,
  type ZipEntryInfo,
} from '@fileshare/protocol'

import { checkHiddenTopLevel, isUnderOneFolder, makeNewFolder } from './archive-layout.js'
import { unsafeEntryName } from './entry-name.js'
import { CliError, EXIT, UnsafeArchiveError } from './errors.js'
import { openFileBytes } from './file-bytes.js'
import { existsError, placeFile, temporaryPath, writeTemporary, type SparseWriter } from './save.js'

const S_IFMT = 0o170000
const FILE_TYPES: Readonly<Record<number, string>> = {
  0o010000: 'a FIFO',
  0o020000: 'a character device',
  0o060000: 'a block device',
  0o120000: 'a symbolic link',
  0o140000: 'a socket',
}
const S_IFDIR = 0o040000
const S_IFREG = 0o100000
/** "Version made by" host system 3 is Unix: the high 16 bits of the external attributes are st_mode. */
const HOST_UNIX = 3
const DOS_DIRECTORY = 0x10

/** An archive's bytes and its directory, read once. */
export interface OpenedZip {
  source: ArchiveBytes
  directory: ZipDirectory
}

interface PlannedEntry {
  entry: ZipEntryInfo
  name: string
  target: string
  directory: boolean
  /** Permission bits from the archive, or null to use the defaults. */
  mode: number | null
  mtime: Date
}

export interface ExtractOptions {
  /** Replaces existing files, and allows a hidden name at the archive's top level. */
  force: boolean
  /**
   * When set, an archive whose entries are not all under one top-level folder goes into a new
   * folder of this name inside the target (archive-layout.ts).
   */
  folderName?: string
  /** Plaintext bytes extracted so far. */
  onBytes?: (bytes: number) => void
}

export interface ExtractedEntry {
  /** Absolute path. */
  path: string
  directory: boolean
}

export interface Extraction {
  /** The new folder made for the archive (absolute), or null when it went into the target. */
  folder: string | null
  /** The files and folders written, in archive order. */
  entries: ExtractedEntry[]
}

/** Extracts every entry, into a new folder when `folderName` says so. */
export async function extractArchive(
  zipPath: string,
  targetDir: string,
  options: ExtractOptions,
): Promise<Extraction> {
  const file = await openFileBytes(zipPath)
  let folder: string | null = null
  try {
    const zip = await readZip(file)
    const entries = zip.directory.entries
    // Checked before the layout: a hostile name is refused as such, whatever else it is.
    plan(entries, resolve(targetDir))
    const names = entries.map((e) => e.path)
    checkHiddenTopLevel(names, options.force)
    if (options.folderName !== undefined && !isUnderOneFolder(names)) {
      await mkdir(targetDir, { recursive: true })
      folder = await makeNewFolder(resolve(targetDir), options.folderName)
    }
    const root = folder ?? resolve(targetDir)
    const written = await extractInto(zip, root, plan(entries, root), options)
    return { folder, entries: written }
  } catch (error) {
    // Empty once extraction has cleaned up after itself; anything else in it stays.
    if (folder !== null) await rmdir(folder).catch(() => undefined)
    throw error
  } finally {
    await file.close()
  }
}

/**
 * Extracts the entries named in `only` (files, and folders with everything under them) under
 * their own paths in `targetDir`, from an archive read in place (`FileRanges`). The whole
 * archive is checked as `extractArchive` checks it first; a name it does not hold is refused.
 */
export async function extractSelected(
  zip: OpenedZip,
  targetDir: string,
  only: readonly string[],
  options: ExtractOptions,
): Promise<Extraction> {
  const entries = zip.directory.entries
  const root = resolve(targetDir)
  plan(entries, root)
  const wanted = only.map((path) => path.replace(/\/+$/, ''))
  const selects = (name: string, path: string) =>
    name.replace(/\/+$/, '') === path || name.startsWith(`${path}/`)
  for (const path of wanted) {
    if (!entries.some((e) => selects(e.path, path))) {
      throw new CliError(`The archive holds no entry ${describeName(path)}`, EXIT.USAGE)
    }
  }
  const chosen = entries.filter((e) => wanted.some((path) => selects(e.path, path)))
  checkHiddenTopLevel(
    chosen.map((e) => e.path),
    options.force,
  )
  await mkdir(root, { recursive: true })
  return { folder: null, entries: await extractInto(zip, root, plan(chosen, root), options) }
}

/** Writes the planned entries below `root`, then gives them their names, times and modes. */
async function extractInto(
  zip: OpenedZip,
  root: string,
  planned: PlannedEntry[],
  options: ExtractOptions,
): Promise<ExtractedEntry[]> {
  await checkTargets(planned, root, options.force)
  const files = await writeAll(zip, root, planned, options)
  // Every file is complete and checked: only now does anything take its final name.
  for (const [index, { item, temporary }] of files.entries()) {
    try {
      await placeFile(temporary, item.target, options.force, item.mode ?? 0o666)
    } catch (error) {
      await Promise.all(files.slice(index + 1).map((f) => rm(f.temporary, { force: true })))
      throw error
    }
    await utimes(item.target, item.mtime, item.mtime)
  }
  // Folders last and deepest first: writing files into them would move their times again,
  // and a read-only folder must still take its files.
  const directories = planned.filter((p) => p.directory).reverse()
  for (const item of directories) {
    if (item.mode !== null) await chmod(item.target, item.mode & ~process.umask() & 0o777)
    await utimes(item.target, item.mtime, item.mtime)
  }
  return planned.map((p) => ({ path: p.target, directory: p.directory }))
}

interface WrittenFile {
  item: PlannedEntry
  temporary: string
}

/**
 * Writes every file entry under a temporary name beside its target, creating the folders on the
 * way. On any failure the temporary files and the folders made here are removed again.
 */
async function writeAll(
  zip: OpenedZip,
  root: string,
  planned: readonly PlannedEntry[],
  options: ExtractOptions,
): Promise<WrittenFile[]> {
  const files: WrittenFile[] = []
  const made: string[] = []
  let extracted = 0
  try {
    for (const item of planned) {
      await makeDirectories(root, item.directory ? item.target : dirname(item.target), made)
      if (item.directory) continue
      const temporary = temporaryPath(item.target)
      const before = extracted
      await writeTemporary(temporary, async (writer) => {
        await copyEntry(zip, item.entry, writer, (n) => options.onBytes?.((extracted = before + n)))
      })
      files.push({ item, temporary })
      extracted = before + item.entry.size
    }
    return files
  } catch (error) {
    await Promise.all(files.map((f) => rm(f.temporary, { force: true })))
    // Deepest first; a folder that something else has put a file into stays.
    for (const folder of made.reverse()) await rmdir(folder).catch(() => undefined)
    throw error
  }
}

/** The archive's directory, from a file or read in place (`FileRanges`). */
export async function readZip(source: ArchiveBytes): Promise<OpenedZip> {
  try {
    return { source, directory: await readZipDirectory(source) }
  } catch (error) {
    throw archiveError(error)
  }
}

/** The reader's BAD_INPUT (an invalid or damaged archive) exits as a failed check; else as is. */
function archiveError(error: unknown): unknown {
  if (!(error instanceof ProtocolError) || error.code !== 'BAD_INPUT') return error
  const message = error.message.startsWith('Not a valid ZIP archive: ')
    ? `The download is not a valid ZIP archive: ${error.message.slice(25)}`
    : error.message
  return new CliError(message, EXIT.FAILED, { cause: error })
}

function describeName(name: string): string {
  return JSON.stringify(name)
}

/** Checks every entry and where it would go; throws before anything is written. */
export function plan(entries: readonly ZipEntryInfo[], root: string): PlannedEntry[] {
  const planned: PlannedEntry[] = []
  const kinds = new Map<string, 'file' | 'directory'>()
  for (const entry of entries) {
    const name = entry.path
    const unsafe = unsafeEntryName(name)
    if (unsafe !== null) throw new UnsafeArchiveError(`entry ${describeName(name)} has ${unsafe}`)
    if (entry.encrypted) throw new UnsafeArchiveError(`entry ${describeName(name)} is encrypted`)
    if (entry.method !== 0 && entry.method !== 8) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} uses an unknown compression method`)
    }
    const unixMode = entry.versionMadeBy >>> 8 === HOST_UNIX ? entry.externalAttributes >>> 16 : 0
    const type = unixMode & S_IFMT
    const special = FILE_TYPES[type]
    if (special !== undefined)
      throw new UnsafeArchiveError(`entry ${describeName(name)} is ${special}`)
    if (type !== 0 && type !== S_IFDIR && type !== S_IFREG) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} has an unknown file type`)
    }
    const directory =
      type === S_IFDIR ||
      (type === 0 && (name.endsWith('/') || (entry.externalAttributes & DOS_DIRECTORY) !== 0))
    if (directory !== name.endsWith('/')) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} is a folder and a file at once`)
    }
    if (directory && entry.size !== 0) {
      throw new UnsafeArchiveError(`folder entry ${describeName(name)} holds data`)
    }
    const clean = directory ? name.slice(0, -1) : name
    const target = resolve(root, ...clean.split('/'))
    const rel = relative(root, target)
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} points outside the folder`)
    }
    const kind = directory ? 'directory' : 'file'
    const previous = kinds.get(clean)
    if (previous !== undefined && (previous === 'file' || kind === 'file')) {
      throw new UnsafeArchiveError(`the name ${describeName(clean)} appears twice`)
    }
    kinds.set(clean, kind)
    planned.push({
      entry,
      name,
      target,
      directory,
      mode: type === 0 ? null : unixMode & 0o7777,
      mtime: entry.modified,
    })
  }
  // A file may not also be a parent folder of another entry (`a` and `a/b`).
  for (const clean of kinds.keys()) {
    const parts = clean.split('/')
    for (let i = 1; i < parts.length; i++) {
      if (kinds.get(parts.slice(0, i).join('/')) === 'file') {
        throw new UnsafeArchiveError(
          `${describeName(clean)} is inside ${describeName(parts.slice(0, i).join('/'))}, which is a file`,
        )
      }
    }
  }
  return planned
}

async function lstatOrNull(path: string) {
  try {
    return await lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Refuses existing files (unless `force`), and anything that would be reached through a link. */
async function checkTargets(
  planned: readonly PlannedEntry[],
  root: string,
  force: boolean,
): Promise<void> {
  const checkedParents = new Set<string>()
  for (const item of planned) {
    const parts = relative(root, item.target).split(sep)
    // Every folder between the root and the entry must be a real folder, not a link.
    for (let i = 1; i < parts.length; i++) {
      const parent = join(root, ...parts.slice(0, i))
      if (checkedParents.has(parent)) continue
      checkedParents.add(parent)
      const stats = await lstatOrNull(parent)
      if (stats === null) break
      if (stats.isSymbolicLink()) {
        throw new CliError(`${parent} is a symbolic link; not extracting through it`, EXIT.USAGE)
      }
      if (!stats.isDirectory())
        throw new CliError(`${parent} exists and is not a folder`, EXIT.USAGE)
    }
    const stats = await lstatOrNull(item.target)
    if (stats === null) continue
    if (item.directory) {
      if (!stats.isDirectory() || stats.isSymbolicLink()) {
        throw new CliError(`${item.target} exists and is not a folder`, EXIT.USAGE)
      }
    } else if (stats.isDirectory()) {
      throw new CliError(`${item.target} exists and is a folder`, EXIT.USAGE)
    } else if (!force) {
      throw existsError(item.target)
    }
  }
}

/**
 * Creates `path` and its parents below `root` (and `root` itself), refusing to pass through a
 * symbolic link; adds each folder it creates to `made`, parents first.
 */
async function makeDirectories(root: string, path: string, made: string[]): Promise<void> {
  const parts = relative(root, path)
    .split(sep)
    .filter((p) => p !== '')
  let current = root
  const first = await mkdir(root, { recursive: true })
  if (first !== undefined) made.push(...createdFolders(first, root))
  for (const part of parts) {
    current = join(current, part)
    try {
      await mkdir(current)
      made.push(current)
      continue
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const stats = await lstat(current)
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new CliError(`${current} is not a folder; not extracting into it`, EXIT.USAGE)
    }
  }
}

/** The folders `mkdir(root, { recursive: true })` created, from the first one it reported. */
function createdFolders(first: string, root: string): string[] {
  const folders = [first]
  for (const part of relative(first, root)
    .split(sep)
    .filter((p) => p !== '')) {
    folders.push(join(folders.at(-1)!, part))
  }
  return folders
}

/**
 * Copies one file entry into `writer`; the reader checks its size and CRC-32 as it passes. Only
 * that entry's local header and data are read.
 */
async function copyEntry(
  zip: OpenedZip,
  entry: ZipEntryInfo,
  writer: SparseWriter,
  onBytes: (bytes: number) => void,
): Promise<void> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  try {
    reader = (await openZipEntry(zip.source, zip.directory, entry)).getReader()
    for (;;) {
      const next = await reader.read()
      if (next.done) return
      await writer.write(next.value)
      onBytes(writer.written)
    }
  } catch (error) {
    await reader?.cancel(error).catch(() => undefined)
    throw archiveError(error)
  }
}
