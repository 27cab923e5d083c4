/**
 * Whether a download is a ZIP archive the page can look inside: one the sender's client packed
 * (several files or a folder), or a single uploaded file that is itself a ZIP.
 */
import type { FileMetadata } from '@fileshare/protocol'

const ZIP_TYPES = new Set(['application/zip', 'application/x-zip-compressed'])

export function isZipDownload(metadata: FileMetadata | null, fileCount: number): boolean {
  if (!metadata) return fileCount > 1
  if (metadata.archive) return true
  const only = metadata.files.length === 1 ? metadata.files[0] : undefined
  if (!only) return false
  return only.name.toLowerCase().endsWith('.zip') || ZIP_TYPES.has(only.type)
}
