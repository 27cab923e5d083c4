/**
 * What the note form sends: the text of the chosen kind, its UTF-8 size against the server's
 * `noteMaxSize`, and whether it may be sent. Text, Markdown and code share one draft, so switching
 * between them keeps what was written; a password list and SSH keys keep their own.
 */
import type { NoteContentType } from '@fileshare/protocol'

import { isBlankEntry, serializePasswordList, type PasswordEntry } from '@fileshare/protocol'

export interface NoteDrafts {
  /** The draft of the text, markdown and code kinds. */
  prose: string
  password: PasswordEntry[]
  sshkey: string
}

export type DraftProblem = 'empty' | 'tooLarge' | null

/** The note text for `type`. */
export function noteText(type: NoteContentType, drafts: NoteDrafts): string {
  if (type === 'password') return serializePasswordList(drafts.password)
  return type === 'sshkey' ? drafts.sshkey : drafts.prose
}

/** True when the draft of `type` holds nothing worth sending. */
export function isEmptyDraft(type: NoteContentType, drafts: NoteDrafts): boolean {
  if (type === 'password') return drafts.password.every(isBlankEntry)
  return noteText(type, drafts).trim() === ''
}

export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length
}

/** Why the draft cannot be sent yet, or null. */
export function draftProblem(
  type: NoteContentType,
  drafts: NoteDrafts,
  maxBytes: number,
): DraftProblem {
  if (isEmptyDraft(type, drafts)) return 'empty'
  if (utf8Length(noteText(type, drafts)) > maxBytes) return 'tooLarge'
  return null
}
