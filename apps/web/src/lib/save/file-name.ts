/** The name a download is saved under, from the decrypted metadata. */
import type { FileMetadata } from '@fileshare/protocol'

const MAX_NAME = 200

/**
 * A name safe on every common file system: no path separators, reserved characters or control
 * characters, no leading dots (hidden files), at most 200 characters (extension kept).
 */
export function sanitizeFileName(name: string, fallback: string): string {
  let clean = name
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '')
  if (clean.length > MAX_NAME) {
    const dot = clean.lastIndexOf('.')
    const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : ''
    clean = clean.slice(0, MAX_NAME - ext.length) + ext
  }
  return clean || fallback
}

/**
 * One file: its own name (last path segment). An archive: `<folder>.zip` when everything sits in
 * one top-level folder, otherwise `archiveName`. No metadata: `fallback` (plus `.zip` for archives).
 */
export function saveNameOf(
  metadata: FileMetadata | null,
  fileCount: number,
  names: { fallback: string; archiveName: string },
): string {
  if (!metadata) {
    return fileCount > 1 ? `${names.fallback}.zip` : names.fallback
  }
  if (!metadata.archive) {
    const only = metadata.files[0]?.name ?? ''
    return sanitizeFileName(only.split('/').pop() ?? '', names.fallback)
  }
  const tops = new Set(metadata.files.map((f) => f.name.split('/')[0]))
  const nested = metadata.files.every((f) => f.name.includes('/'))
  if (tops.size === 1 && nested) {
    const [top] = tops
    return `${sanitizeFileName(top ?? '', names.fallback)}.zip`
  }
  return names.archiveName
}

/** A media type for the save: the file's own for a single file, ZIP for an archive. */
export function saveTypeOf(metadata: FileMetadata | null, fileCount: number): string {
  if (metadata?.archive || (!metadata && fileCount > 1)) return 'application/zip'
  const type = metadata?.files[0]?.type ?? ''
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'application/octet-stream'
}
