/** How an inbox entry is named and counted on the inbox page and when it is saved. */
import { plainSize, type FileMetadata } from '@fileshare/protocol'

import { saveNameOf, saveTypeOf } from '../save/file-name'

export interface EntryFacts {
  size: number
  fileCount: number
  metadata: FileMetadata
  downloadCount: number
  maxDownloads: number
  createdAt: string
}

export function downloadsLeft(entry: Pick<EntryFacts, 'downloadCount' | 'maxDownloads'>): number {
  return Math.max(0, entry.maxDownloads - entry.downloadCount)
}

/** Plaintext bytes of the upload (the single file, or the ZIP archive). */
export function entryPlainSize(entry: Pick<EntryFacts, 'size'>): number {
  return plainSize(entry.size)
}

/**
 * The name shown and saved: the file's own name, `<folder>.zip` for one folder, otherwise
 * `archiveName` (which the caller words, for example with the arrival date).
 */
export function entryName(
  entry: Pick<EntryFacts, 'metadata' | 'fileCount'>,
  names: { fallback: string; archiveName: string },
): string {
  return saveNameOf(entry.metadata, entry.fileCount, names)
}

export function entryType(entry: Pick<EntryFacts, 'metadata' | 'fileCount'>): string {
  return saveTypeOf(entry.metadata, entry.fileCount)
}

/** `YYYY-MM-DD` of a timestamp, for archive names. */
export function dayOf(iso: string): string {
  return iso.slice(0, 10)
}
