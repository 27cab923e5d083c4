/**
 * What the user picked to upload, as a flat list of archive paths: files from the picker, whole
 * folders from the folder picker (`webkitdirectory`) or from a drop (`webkitGetAsEntry`), with
 * empty folders kept. The list becomes the ZIP's entries when more than one file or any folder
 * is sent, and the file list of the encrypted metadata either way.
 */
import { encryptedSize, zipSize, type ArchiveEntry, type FileMetadata } from '@fileshare/protocol'

export interface PickedEntry {
  /** `/`-separated path; a directory ends with `/`. */
  path: string
  /** Bytes; 0 for directories. */
  size: number
  /** Milliseconds since the epoch. */
  lastModified: number
  /** The file's bytes; absent for directories. */
  file?: File
}

/** One line of the picked list: a file, or a folder with everything under it. */
export interface TopLevelItem {
  name: string
  folder: boolean
  size: number
  files: number
}

export function isDirectory(entry: Pick<PickedEntry, 'path'>): boolean {
  return entry.path.endsWith('/')
}

function fileEntry(path: string, file: File): PickedEntry {
  return { path, size: file.size, lastModified: file.lastModified, file }
}

/** Files from an `<input type=file>` (with `webkitdirectory`, paths include the folder). */
export function fromFiles(files: Iterable<File>): PickedEntry[] {
  const picked: PickedEntry[] = []
  for (const file of files) {
    const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath
    picked.push(fileEntry(relative || file.name, file))
  }
  return picked
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject))
}

/** Every child of a directory: `readEntries` answers in batches until it answers none. */
async function childrenOf(entry: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = entry.createReader()
  const all: FileSystemEntry[] = []
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    )
    if (batch.length === 0) return all
    all.push(...batch)
  }
}

/** A dropped file or folder, walked recursively; folders get their own entry (kept if empty). */
export async function fromFileSystemEntry(
  entry: FileSystemEntry,
  now = Date.now(),
): Promise<PickedEntry[]> {
  const path = entry.fullPath.replace(/^\/+/, '') || entry.name
  if (entry.isFile) return [fileEntry(path, await fileOf(entry as FileSystemFileEntry))]
  if (!entry.isDirectory) return []
  const picked: PickedEntry[] = [{ path: `${path}/`, size: 0, lastModified: now }]
  const children = await childrenOf(entry as FileSystemDirectoryEntry)
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const child of children) picked.push(...(await fromFileSystemEntry(child, now)))
  return picked
}

/**
 * What a drop carries. The entries must be taken from the DataTransfer during the drop event
 * itself (it is emptied afterwards), so this reads them synchronously before awaiting anything.
 */
export function fromDataTransfer(data: DataTransfer): Promise<PickedEntry[]> {
  const entries: FileSystemEntry[] = []
  const items = data.items ? Array.from(data.items) : []
  const canWalk = items.length > 0 && typeof items[0]!.webkitGetAsEntry === 'function'
  if (!canWalk) return Promise.resolve(fromFiles(Array.from(data.files)))
  for (const item of items) {
    if (item.kind !== 'file') continue
    const entry = item.webkitGetAsEntry()
    if (entry) entries.push(entry)
  }
  // A drop made by a script, or by a browser that offers no entries for these files, still
  // carries them as plain files.
  if (entries.length === 0) return Promise.resolve(fromFiles(Array.from(data.files)))
  const now = Date.now()
  return Promise.all(entries.map((e) => fromFileSystemEntry(e, now))).then((lists) => lists.flat())
}

function topName(path: string): string {
  return path.split('/')[0]!
}

/** Adds the folder entries that a file path implies (`a/b/c` needs `a/` and `a/b/`). */
export function withParentDirs(entries: readonly PickedEntry[]): PickedEntry[] {
  const seen = new Set(entries.filter(isDirectory).map((e) => e.path))
  const out: PickedEntry[] = []
  for (const entry of entries) {
    const parts = entry.path.split('/')
    for (let i = 1; i < parts.length - (isDirectory(entry) ? 1 : 0); i++) {
      const dir = `${parts.slice(0, i).join('/')}/`
      if (!seen.has(dir)) {
        seen.add(dir)
        out.push({ path: dir, size: 0, lastModified: entry.lastModified })
      }
    }
    out.push(entry)
  }
  return out
}

/** `name (2).ext`, `name (3).ext`, … the first one not in `taken`. */
function freeName(name: string, taken: ReadonlySet<string>): string {
  const dot = name.lastIndexOf('.')
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
  for (let n = 2; ; n++) {
    const candidate = `${base} (${n})${ext}`
    if (!taken.has(candidate)) return candidate
  }
}

/**
 * Appends newly picked entries; a top-level file or folder whose name is already in the list is
 * renamed (`photo (2).jpg`) so no path in the archive appears twice.
 */
export function mergeEntries(
  existing: readonly PickedEntry[],
  incoming: readonly PickedEntry[],
): PickedEntry[] {
  const taken = new Set(existing.map((e) => topName(e.path)))
  const groups = new Map<string, PickedEntry[]>()
  for (const entry of incoming) {
    const top = topName(entry.path)
    if (!groups.has(top)) groups.set(top, [])
    groups.get(top)!.push(entry)
  }
  const added: PickedEntry[] = []
  for (const [top, group] of groups) {
    const name = taken.has(top) ? freeName(top, taken) : top
    taken.add(name)
    for (const entry of group) {
      added.push(name === top ? entry : { ...entry, path: name + entry.path.slice(top.length) })
    }
  }
  return withParentDirs([...existing, ...added])
}

/** The picked list as the user sees it: one line per top-level file or folder. */
export function topLevelItems(entries: readonly PickedEntry[]): TopLevelItem[] {
  const items = new Map<string, TopLevelItem>()
  for (const entry of entries) {
    const name = topName(entry.path)
    const folder = entry.path.length > name.length
    const item = items.get(name) ?? { name, folder, size: 0, files: 0 }
    item.folder ||= folder
    if (!isDirectory(entry)) {
      item.size += entry.size
      item.files += 1
    }
    items.set(name, item)
  }
  return [...items.values()]
}

export function removeTopLevel(entries: readonly PickedEntry[], name: string): PickedEntry[] {
  return entries.filter((e) => topName(e.path) !== name)
}

export function totalSize(entries: readonly PickedEntry[]): number {
  return entries.reduce((sum, e) => sum + e.size, 0)
}

export function fileCountOf(entries: readonly PickedEntry[]): number {
  return entries.filter((e) => !isDirectory(e)).length
}

/** Several entries, or one inside a folder, travel as a ZIP archive. */
export function needsArchive(entries: readonly PickedEntry[]): boolean {
  return entries.length > 1 || (entries.length === 1 && entries[0]!.path.includes('/'))
}

/** The entries for `createZipStream`/`zipSize`, each file opened only when the archive reaches it. */
export function toArchiveEntries(entries: readonly PickedEntry[]): ArchiveEntry[] {
  return entries.map((entry) => {
    const archived: ArchiveEntry = {
      path: entry.path,
      size: isDirectory(entry) ? 0 : entry.size,
      mtime: new Date(entry.lastModified),
    }
    const file = entry.file
    if (file && !isDirectory(entry)) archived.open = () => file.stream()
    return archived
  })
}

/** The names, types and sizes stored (encrypted) with the upload. */
export function metadataOf(entries: readonly PickedEntry[]): FileMetadata {
  const files = entries
    .filter((e) => !isDirectory(e))
    .map((e) => ({ name: e.path, type: e.file?.type ?? '', size: e.size }))
  return { archive: needsArchive(entries), files }
}

/**
 * The upload the picked entries make, as the worker builds it (lib/worker/methods.ts): its
 * encrypted size and its `X-File-Count` (every archive entry counts, folders included).
 */
export function filesUpload(entries: readonly PickedEntry[]): {
  fileCount: number
  encryptedBytes: number
} {
  if (entries.length === 0) return { fileCount: 0, encryptedBytes: 0 }
  if (!needsArchive(entries)) {
    return { fileCount: 1, encryptedBytes: encryptedSize(entries[0]!.size) }
  }
  const archive = toArchiveEntries(entries)
  return { fileCount: Math.max(2, archive.length), encryptedBytes: encryptedSize(zipSize(archive)) }
}
