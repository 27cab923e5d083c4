import { describe, expect, it } from 'vitest'

import { submissionFits, submissionsLeft, submissionsUsed } from './submissions.js'

describe('submissionsLeft', () => {
  it('counts what the server says when the request takes no note', () => {
    expect(submissionsLeft({ acceptsNote: false, uploadsLeft: 3 })).toBe(3)
  })

  it('counts submissions, not slots, when slots are kept for notes', () => {
    // One upload with a note, after a files-only submission: the note's slot is no submission.
    expect(submissionsLeft({ acceptsNote: true, uploadsLeft: 0, notesLeft: 1 })).toBe(0)
    expect(submissionsLeft({ acceptsNote: true, uploadsLeft: 1, notesLeft: 1 })).toBe(1)
  })

  it('counts two slots a submission on a request without kept note slots', () => {
    // One upload with a note after a files-only submission: one slot left, no submission.
    expect(submissionsLeft({ acceptsNote: true, uploadsLeft: 1 })).toBe(0)
    expect(submissionsLeft({ acceptsNote: true, uploadsLeft: 4 })).toBe(2)
  })
})

describe('submissionsUsed', () => {
  it('says one of one after a files-only and a files-and-note submission alike', () => {
    const kept = { acceptsNote: true, maxUploads: 2 }
    expect(submissionsUsed({ ...kept, usedUploads: 1, usedNotes: 0 })).toEqual({ used: 1, max: 1 })
    expect(submissionsUsed({ ...kept, usedUploads: 2, usedNotes: 1 })).toEqual({ used: 1, max: 1 })
    expect(submissionsUsed({ ...kept, usedUploads: 1 })).toEqual({ used: 1, max: 1 })
  })

  it('counts five of ten submissions as the requester chose ten', () => {
    const usage = { acceptsNote: true, maxUploads: 20, usedUploads: 7, usedNotes: 2 }
    expect(submissionsUsed(usage)).toEqual({ used: 5, max: 10 })
  })

  it('leaves a request without notes as the server counts it', () => {
    const usage = { acceptsNote: false, maxUploads: 5, usedUploads: 2 }
    expect(submissionsUsed(usage)).toEqual({ used: 2, max: 5 })
  })
})

describe('submissionFits', () => {
  const kept = { acceptsNote: true, uploadsLeft: 1, notesLeft: 1 }

  it('needs a note slot only for a note that goes with files', () => {
    expect(submissionFits(kept, { files: true, note: true })).toBe(true)
    expect(submissionFits({ ...kept, notesLeft: 0 }, { files: true, note: true })).toBe(false)
    expect(submissionFits({ ...kept, notesLeft: 0 }, { files: false, note: true })).toBe(true)
    expect(submissionFits({ ...kept, uploadsLeft: 0 }, { files: true, note: false })).toBe(false)
  })

  it('lets an unfinished upload resume into the slot it holds', () => {
    expect(submissionFits({ ...kept, uploadsLeft: 0 }, { files: true, note: true }, 1)).toBe(true)
  })

  it('counts every part as a slot without kept note slots', () => {
    const room = { acceptsNote: true, uploadsLeft: 1 }
    expect(submissionFits(room, { files: true, note: true })).toBe(false)
    expect(submissionFits(room, { files: true, note: false })).toBe(true)
  })

  it('refuses an empty submission', () => {
    expect(submissionFits(kept, { files: false, note: false })).toBe(false)
  })
})
