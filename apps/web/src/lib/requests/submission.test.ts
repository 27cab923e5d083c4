import { describe, expect, it } from 'vitest'

import { SENDER_NOTE_MAX_BYTES, submissionProblem } from './submission'

const limits = {
  acceptsNote: true,
  uploadsLeft: 4,
  maxUploadSize: 1000,
  maxFilesPerUpload: 3,
  heldByUnfinished: 0,
}
const files = { fileCount: 2, encryptedBytes: 900, note: '' }

describe('submission checks', () => {
  it('accepts files, a note, or both within the limits', () => {
    expect(submissionProblem(files, limits)).toBeNull()
    expect(submissionProblem({ fileCount: 0, encryptedBytes: 0, note: 'hi' }, limits)).toBeNull()
    expect(submissionProblem({ ...files, note: 'hi' }, { ...limits, uploadsLeft: 2 })).toBeNull()
  })

  it('sends files and a note into one upload and its note slot, not two uploads', () => {
    const kept = { ...limits, uploadsLeft: 1, notesLeft: 1 }
    expect(submissionProblem({ ...files, note: 'hi' }, kept)).toBeNull()
    // Another sender's files used the one upload: its note slot takes no files.
    expect(submissionProblem(files, { ...kept, uploadsLeft: 0 })).toBe('noRoomForNote')
  })

  it('ignores a note the request does not accept', () => {
    const noNotes = { ...limits, acceptsNote: false, uploadsLeft: 1 }
    expect(submissionProblem({ ...files, note: 'hi' }, noNotes)).toBeNull()
    expect(submissionProblem({ fileCount: 0, encryptedBytes: 0, note: 'hi' }, noNotes)).toBe(
      'empty',
    )
  })

  it('names the limit a submission breaks', () => {
    expect(submissionProblem({ ...files, fileCount: 4 }, limits)).toBe('tooMany')
    expect(submissionProblem({ ...files, encryptedBytes: 1001 }, limits)).toBe('tooLarge')
    const long = 'x'.repeat(SENDER_NOTE_MAX_BYTES + 1)
    expect(submissionProblem({ ...files, note: long }, limits)).toBe('noteTooLong')
    expect(submissionProblem({ ...files, note: 'hi' }, { ...limits, uploadsLeft: 1 })).toBe(
      'noRoomForNote',
    )
  })

  it('says when only the slot of the unfinished upload keeps a new submission out', () => {
    // A request of one upload, which the unfinished one holds while it waits to be resumed.
    const full = { ...limits, acceptsNote: false, uploadsLeft: 0, heldByUnfinished: 1 }
    expect(submissionProblem(files, full)).toBe('heldByUnfinished')
    expect(submissionProblem(files, full, true)).toBeNull()
    // Files and a note, one slot left beside the one the unfinished upload holds.
    const withNote = { ...limits, uploadsLeft: 1, heldByUnfinished: 1 }
    expect(submissionProblem({ ...files, note: 'hi' }, withNote)).toBe('heldByUnfinished')
    expect(submissionProblem({ ...files, note: 'hi' }, withNote, true)).toBeNull()
    expect(submissionProblem({ ...files, note: 'hi' }, { ...withNote, uploadsLeft: 0 })).toBe(
      'noRoomForNote',
    )
  })
})
