/**
 * A request's uploads counted as its requester chose them: submissions (files, with the sender's
 * note when the request takes one), whatever the server's slot count. The web app and the
 * command line count with these alone, for the sender, the inbox and the history.
 *
 * A request that takes notes has twice the slots on the server (spec: File request record). One
 * created with `senderNotes` sets half of them aside for notes that go with files (the server
 * then answers `notesLeft` and `usedNotes`, and `uploadsLeft` counts submissions); on one created
 * before that, every submission is counted as two slots.
 */

/** What the sender's read of a request says about its room. */
export interface RequestRoom {
  acceptsNote: boolean
  /** `uploadsLeft` of `GET /api/request/:id`. */
  uploadsLeft: number
  /** Ours: note slots left, present when the request sets slots aside for notes. */
  notesLeft?: number | undefined
}

/** What the inbox says about the uploads a request took. */
export interface RequestUsage {
  acceptsNote: boolean
  maxUploads: number
  usedUploads: number
  /** Ours: finished notes that went with files, present when slots are set aside for them. */
  usedNotes?: number | undefined
}

/** The parts of one submission. */
export interface SubmissionParts {
  files: boolean
  note: boolean
}

/** Submissions a sender may still make. */
export function submissionsLeft(room: RequestRoom): number {
  const left = Math.max(0, room.uploadsLeft)
  if (!room.acceptsNote || room.notesLeft !== undefined) return left
  return Math.floor(left / 2)
}

/** Submissions used and offered, deleted ones included. */
export function submissionsUsed(usage: RequestUsage): { used: number; max: number } {
  if (!usage.acceptsNote) return { used: usage.usedUploads, max: usage.maxUploads }
  const max = Math.floor(usage.maxUploads / 2)
  const used =
    usage.usedNotes !== undefined
      ? usage.usedUploads - usage.usedNotes
      : Math.ceil(usage.usedUploads / 2)
  return { used: Math.min(max, Math.max(0, used)), max }
}

/**
 * Whether a submission of `parts` fits. `held`: slots of the request this sender's own unfinished
 * files upload holds and will use (it resumes into them).
 */
export function submissionFits(room: RequestRoom, parts: SubmissionParts, held = 0): boolean {
  if (!parts.files && !parts.note) return false
  const uploadsLeft = room.uploadsLeft + held
  const note = parts.note && room.acceptsNote
  if (room.notesLeft === undefined) return uploadsLeft >= (parts.files ? 1 : 0) + (note ? 1 : 0)
  // A note with files takes a note's slot; a note alone is a submission of its own.
  return uploadsLeft >= 1 && (!note || !parts.files || room.notesLeft >= 1)
}
