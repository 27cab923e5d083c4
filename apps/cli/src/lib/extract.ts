/**
 * Extracts a downloaded ZIP archive into a folder, refusing the whole archive before writing
 * anything when one entry could escape the folder or is not a plain file or folder: `..`
 * segments, absolute paths, backslashes, symbolic links, device files, FIFOs, sockets, duplicate
 * names. Existing files are kept unless `force`; nothing is ever written through an existing
 * symbolic link. Each file is written under a temporary name and renamed when complete.
 */
import { lstat, mkdir, open, utimes, chmod } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

import type { Entry, ZipFile } from 'yauzl'

import { unsafeEntryName } from './entry-name.js'
import { CliError, EXIT, UnsafeArchiveError } from './errors.js'
import { existsError, placeFile, temporaryPath, writeTemporary, type SparseWriter } from './save.js'

const READ_SIZE = 1024 * 1024

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

interface PlannedEntry {
  entry: Entry
  name: string
  target: string
  directory: boolean
  /** Permission bits from the archive, or null to use the defaults. */
  mode: number | null
  mtime: Date
}

export interface ExtractOptions {
  force: boolean
  /** Plaintext bytes extracted so far. */
  onBytes?: (bytes: number) => void
}

export interface ExtractedEntry {
  /** Absolute path. */
  path: string
  directory: boolean
}

/** Extracts every entry; answers the files and folders written, in archive order. */
export async function extractArchive(
  zipPath: string,
  targetDir: string,
  options: ExtractOptions,
): Promise<ExtractedEntry[]> {
  const root = resolve(targetDir)
  const zip = await openZip(zipPath)
  try {
    const planned = plan(await readEntries(zip), root)
    await checkTargets(planned, root, options.force)
    let extracted = 0
    const data = await open(zipPath, 'r')
    try {
      for (const item of planned) {
        await makeDirectories(root, item.directory ? item.target : dirname(item.target))
        if (item.directory) continue
        const temporary = temporaryPath(item.target)
        const before = extracted
        await writeTemporary(temporary, async (writer) => {
          await copyEntry(zip, data, item.entry, writer, (n) =>
            options.onBytes?.((extracted = before + n)),
          )
        })
        extracted = before + item.entry.uncompressedSize
        await placeFile(temporary, item.target, options.force, item.mode ?? 0o666)
        await utimes(item.target, item.mtime, item.mtime)
      }
    } finally {
      await data.close()
    }
    // Folders last and deepest first: writing files into them would move their times again,
    // and a read-only folder must still take its files.
    const directories = planned.filter((p) => p.directory).reverse()
    for (const item of directories) {
      if (item.mode !== null) await chmod(item.target, item.mode & ~process.umask() & 0o777)
      await utimes(item.target, item.mtime, item.mtime)
    }
    return planned.map((p) => ({ path: p.target, directory: p.directory }))
  } finally {
    zip.close()
  }
}

async function openZip(path: string): Promise<ZipFile> {
  const { default: yauzl } = await import('yauzl')
  try {
    return await yauzl.openPromise(path, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      validateEntrySizes: true,
      strictFileNames: true,
    })
  } catch (cause) {
    throw new CliError(
      `The download is not a valid ZIP archive: ${(cause as Error).message}`,
      EXIT.FAILED,
      { cause },
    )
  }
}

async function readEntries(zip: ZipFile): Promise<Entry[]> {
  const entries: Entry[] = []
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry)
  } catch (cause) {
    // yauzl refuses absolute paths, `..` and backslashes itself; its message names the entry.
    const message = (cause as Error).message
    if (/absolute path|invalid relative path|invalid characters/.test(message)) {
      throw new UnsafeArchiveError(message)
    }
    throw new CliError(`The download is not a valid ZIP archive: ${message}`, EXIT.FAILED, {
      cause,
    })
  }
  return entries
}

function describeName(name: string): string {
  return JSON.stringify(name)
}

/** Checks every entry and where it would go; throws before anything is written. */
export function plan(entries: readonly Entry[], root: string): PlannedEntry[] {
  const planned: PlannedEntry[] = []
  const kinds = new Map<string, 'file' | 'directory'>()
  for (const entry of entries) {
    const name = entry.fileName
    const unsafe = unsafeEntryName(name)
    if (unsafe !== null) throw new UnsafeArchiveError(`entry ${describeName(name)} has ${unsafe}`)
    if (entry.isEncrypted())
      throw new UnsafeArchiveError(`entry ${describeName(name)} is encrypted`)
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} uses an unknown compression method`)
    }
    const unixMode =
      entry.versionMadeBy >>> 8 === HOST_UNIX ? entry.externalFileAttributes >>> 16 : 0
    const type = unixMode & S_IFMT
    const special = FILE_TYPES[type]
    if (special !== undefined)
      throw new UnsafeArchiveError(`entry ${describeName(name)} is ${special}`)
    if (type !== 0 && type !== S_IFDIR && type !== S_IFREG) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} has an unknown file type`)
    }
    const directory =
      type === S_IFDIR ||
      (type === 0 && (name.endsWith('/') || (entry.externalFileAttributes & DOS_DIRECTORY) !== 0))
    if (directory !== name.endsWith('/')) {
      throw new UnsafeArchiveError(`entry ${describeName(name)} is a folder and a file at once`)
    }
    if (directory && entry.uncompressedSize !== 0) {
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
      mtime: entry.getLastModDate(),
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

/** Creates `path` and its parents below `root`, refusing to pass through a symbolic link. */
async function makeDirectories(root: string, path: string): Promise<void> {
  const parts = relative(root, path)
    .split(sep)
    .filter((p) => p !== '')
  let current = root
  await mkdir(root, { recursive: true })
  for (const part of parts) {
    current = join(current, part)
    try {
      await mkdir(current)
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

async function copyEntry(
  zip: ZipFile,
  data: Awaited<ReturnType<typeof open>>,
  entry: Entry,
  writer: SparseWriter,
  onBytes: (bytes: number) => void,
): Promise<void> {
  if (entry.compressionMethod === 8) {
    const stream = await zip.openReadStreamPromise(entry)
    for await (const chunk of stream) {
      await writer.write(chunk as Buffer)
      onBytes(writer.written)
    }
    return
  }
  // Stored entries (all that fileshare writes) are copied by position in large reads.
  if (entry.compressedSize !== entry.uncompressedSize) {
    throw new CliError(`Entry ${describeName(entry.fileName)} has inconsistent sizes`, EXIT.FAILED)
  }
  const { fileDataStart } = await zip.readLocalFileHeaderPromise(entry, { minimal: true })
  const end = fileDataStart + entry.compressedSize
  if (end > zip.fileSize) {
    throw new CliError(
      `Entry ${describeName(entry.fileName)} runs past the end of the archive`,
      EXIT.FAILED,
    )
  }
  for (let position = fileDataStart; position < end;) {
    // Not zero-filled: only the bytes the read fills are written.
    const chunk = Buffer.allocUnsafeSlow(Math.min(READ_SIZE, end - position))
    const { bytesRead } = await data.read(chunk, 0, chunk.length, position)
    if (bytesRead === 0) throw new CliError('The archive ended early', EXIT.FAILED)
    await writer.write(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead))
    position += bytesRead
    onBytes(writer.written)
  }
}
