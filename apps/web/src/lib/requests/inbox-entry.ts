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

/** A sender's note rather than files. */
export function isNoteEntry(entry: Pick<EntryFacts, 'metadata'>): boolean {
  return entry.metadata.kind === 'note'
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

/** A files upload with the sender's note that came with it, or a lone upload (files or a note). */
export interface EntryGroup<E> {
  entry: E
  note: E | null
}

/**
 * Puts each sender's note under the files upload it names (its metadata's `with`), so the inbox
 * shows what one sender sent as one entry; a note whose files are gone stands alone.
 */
export function groupEntries<E extends Pick<EntryFacts, 'metadata'> & { id: string }>(
  entries: readonly E[],
): EntryGroup<E>[] {
  const files = new Set(entries.filter((e) => !isNoteEntry(e)).map((e) => e.id))
  const notes = new Map<string, E>()
  for (const entry of entries) {
    const target = entry.metadata.with
    if (isNoteEntry(entry) && target && files.has(target) && !notes.has(target)) {
      notes.set(target, entry)
    }
  }
  const attached = new Set([...notes.values()].map((note) => note.id))
  return entries
    .filter((entry) => !attached.has(entry.id))
    .map((entry) => ({ entry, note: isNoteEntry(entry) ? null : (notes.get(entry.id) ?? null) }))
}
