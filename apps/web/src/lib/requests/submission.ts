/**
 * What a sender may send into a request, checked before anything is encrypted: files (one
 * upload: a single file, or a ZIP of several) and, when the request accepts one, a note (a
 * second upload). The server checks the same limits again; this only spares a doomed upload.
 */
import { submissionFits } from '@fileshare/protocol'

/** Longest note a sender may add, in UTF-8 bytes; it is read whole into the requester's page. */
export const SENDER_NOTE_MAX_BYTES = 64 * 1024

export interface Submission {
  /** Files picked (0 for a note alone). */
  fileCount: number
  /** Encrypted size of the files' upload (0 without files). */
  encryptedBytes: number
  /** The note as typed (ignored unless the request accepts notes). */
  note: string
}

export interface RequestLimits {
  acceptsNote: boolean
  uploadsLeft: number
  /** Note slots left, where the request keeps some for notes that go with files. */
  notesLeft?: number | undefined
  maxUploadSize: number
  maxFilesPerUpload: number
  /**
   * Slots this browser's own unfinished upload into the request holds while it waits to be
   * resumed (0 or 1): reserved on the server, so not among `uploadsLeft`.
   */
  heldByUnfinished: number
}

export type SubmissionProblem =
  'empty' | 'tooLarge' | 'tooMany' | 'noteTooLong' | 'noRoomForNote' | 'heldByUnfinished' | null

/** Whether the note part will be sent. */
export function sendsNote(submission: Submission, limits: RequestLimits): boolean {
  return limits.acceptsNote && submission.note.trim() !== ''
}

/**
 * Why the submission cannot be sent, or null. `resuming`: it continues the unfinished upload,
 * whose slot is its own; otherwise a submission that only that slot keeps out is told so
 * ('heldByUnfinished'), since resuming it or ending it makes room.
 */
export function submissionProblem(
  submission: Submission,
  limits: RequestLimits,
  resuming = false,
): SubmissionProblem {
  const note = sendsNote(submission, limits)
  if (submission.fileCount === 0 && !note) return 'empty'
  if (submission.fileCount > limits.maxFilesPerUpload) return 'tooMany'
  if (submission.encryptedBytes > limits.maxUploadSize) return 'tooLarge'
  if (note && new TextEncoder().encode(submission.note).length > SENDER_NOTE_MAX_BYTES) {
    return 'noteTooLong'
  }
  const held = limits.heldByUnfinished
  const parts = { files: submission.fileCount > 0, note }
  if (submissionFits(limits, parts, resuming ? held : 0)) return null
  return !resuming && submissionFits(limits, parts, held) ? 'heldByUnfinished' : 'noRoomForNote'
}
