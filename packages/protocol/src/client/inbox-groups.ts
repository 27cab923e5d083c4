/**
 * What one sender sent, as one entry of an inbox: a files upload with the sender's note that came
 * with it (the note's metadata names the files upload in `with`).
 */
import type { FileMetadata } from '../crypto/metadata.js'

/** A sender's note rather than files. */
export function isNoteEntry(entry: { metadata: FileMetadata }): boolean {
  return entry.metadata.kind === 'note'
}

export interface EntryGroup<E> {
  entry: E
  note: E | null
}

/**
 * Puts each sender's note under the files upload it names, in the order of the entries; a note
 * whose files are gone (or that names none) stands alone, and a second note for the same files
 * does too.
 */
export function groupEntries<E extends { id: string; metadata: FileMetadata }>(
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
