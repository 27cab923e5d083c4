/**
 * The last resort for browsers with neither a service worker nor the File System Access API:
 * the decrypted bytes are collected in memory, then saved as a Blob. Only files up to
 * `BLOB_SAVE_LIMIT` are accepted this way.
 */

/** 256 MiB: what a phone or an older laptop can hold twice (chunks, then the Blob) safely. */
export const BLOB_SAVE_LIMIT = 256 * 1024 * 1024

/** The whole of `stream` as one Blob of media type `type`. */
export async function collectBlob(stream: ReadableStream<Uint8Array>, type: string): Promise<Blob> {
  const chunks: BlobPart[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value as Uint8Array<ArrayBuffer>)
  }
  return new Blob(chunks, { type })
}

/** Hands `blob` to the browser's own download under `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  // The browser has copied the Blob into its download by the next task; a minute is ample.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

export async function saveAsBlob(
  stream: ReadableStream<Uint8Array>,
  name: string,
  type: string,
): Promise<void> {
  saveBlob(await collectBlob(stream, type), name)
}
