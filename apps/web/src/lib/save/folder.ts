/**
 * Saving several downloads into one folder the user picks once (File System Access,
 * `showDirectoryPicker`, Chromium): each file is written as its plaintext arrives, under a name
 * no file in the folder has yet ("cv (2).pdf" beside "cv.pdf"), so nothing there is replaced.
 * Chromium writes into a temporary file and puts it in place only when the stream ends well, so a
 * failed download leaves nothing behind.
 */

interface FileHandle {
  createWritable(): Promise<WritableStream<Uint8Array>>
}

export interface DirectoryHandle {
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandle>
}

type DirectoryPicker = (options: { mode: 'readwrite' }) => Promise<DirectoryHandle>

function picker(): DirectoryPicker | null {
  const candidate = (globalThis as { showDirectoryPicker?: DirectoryPicker }).showDirectoryPicker
  return typeof candidate === 'function' ? candidate.bind(globalThis) : null
}

export function hasFolderAccess(): boolean {
  return picker() !== null
}

export interface SaveFolder {
  /** A new file for `name`, under that name or the first free variant of it. */
  create(name: string): Promise<{ name: string; writable: WritableStream<Uint8Array> }>
}

/** `name`, then "name (2).ext", "name (3).ext"… */
export function nameVariant(name: string, attempt: number): string {
  if (attempt === 1) return name
  const dot = name.lastIndexOf('.')
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
  return `${stem} (${attempt})${extension}`
}

async function exists(folder: DirectoryHandle, name: string): Promise<boolean> {
  try {
    await folder.getFileHandle(name)
    return true
  } catch (error) {
    if ((error as { name?: unknown } | null)?.name === 'NotFoundError') return false
    // A folder of that name, say: taken all the same.
    if ((error as { name?: unknown } | null)?.name === 'TypeMismatchError') return true
    throw error
  }
}

/** A folder over a directory handle; names taken in this run are remembered too. */
export function saveFolder(folder: DirectoryHandle): SaveFolder {
  const taken = new Set<string>()
  return {
    async create(name) {
      for (let attempt = 1; ; attempt++) {
        const candidate = nameVariant(name, attempt)
        if (taken.has(candidate) || (await exists(folder, candidate))) continue
        taken.add(candidate)
        const handle = await folder.getFileHandle(candidate, { create: true })
        return { name: candidate, writable: await handle.createWritable() }
      }
    },
  }
}

/**
 * Asks for the folder; must run inside the click (the picker needs a user gesture). Rejects with
 * an AbortError when the user closes the picker.
 */
export async function pickSaveFolder(): Promise<SaveFolder> {
  const show = picker()
  if (!show) throw new Error('The File System Access API is not available')
  return saveFolder(await show({ mode: 'readwrite' }))
}
