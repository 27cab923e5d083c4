/**
 * What the note form sends: the text of the chosen kind (each kind keeps its own draft, so
 * switching kinds loses nothing), its UTF-8 size against the server's `noteMaxSize`, and whether
 * it may be sent.
 */
import type { NoteContentType } from '@fileshare/protocol'

import { isBlankEntry, serializePasswordList, type PasswordEntry } from './password-list'

export interface NoteDrafts {
  text: string
  markdown: string
  code: string
  password: PasswordEntry[]
  sshkey: string
}

export type DraftProblem = 'empty' | 'tooLarge' | null

/** The note text for `type`. */
export function noteText(type: NoteContentType, drafts: NoteDrafts): string {
  return type === 'password' ? serializePasswordList(drafts.password) : drafts[type]
}

/** True when the draft of `type` holds nothing worth sending. */
export function isEmptyDraft(type: NoteContentType, drafts: NoteDrafts): boolean {
  if (type === 'password') return drafts.password.every(isBlankEntry)
  return drafts[type].trim() === ''
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
