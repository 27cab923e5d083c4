/**
 * Saving with the File System Access API (`showSaveFilePicker`): the user picks the file, and
 * the decrypted stream is written into it as it arrives. Chromium writes to a temporary file and
 * replaces the target only when the stream ends well, so a failed download leaves nothing.
 */

interface WritableFile {
  createWritable(): Promise<WritableStream<Uint8Array>>
}

type SaveFilePicker = (options: { suggestedName: string }) => Promise<WritableFile>

function picker(): SaveFilePicker | null {
  const candidate = (globalThis as { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker
  return typeof candidate === 'function' ? candidate.bind(globalThis) : null
}

export function hasFileSystemAccess(): boolean {
  return picker() !== null
}

/**
 * Asks where to save; must run inside the click that started the download (the picker needs a
 * user gesture). Resolves to the writer, or rejects with an AbortError when the user cancels.
 */
export async function pickSaveFile(name: string): Promise<WritableStream<Uint8Array>> {
  const show = picker()
  if (!show) throw new Error('The File System Access API is not available')
  const handle = await show({ suggestedName: name })
  return handle.createWritable()
}
