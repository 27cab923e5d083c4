import { describe, expect, it } from 'vitest'

import { sendersUploads, sendersUploadsLeft } from './senders-uploads'

describe('senders’ uploads', () => {
  it('counts a file with its note as one upload when the request accepts notes', () => {
    // Five uploads offered are ten slots; one sender sent files and a note.
    expect(sendersUploads({ used: 2, max: 10 }, true)).toEqual({ used: 1, max: 5 })
    expect(sendersUploadsLeft(8, true)).toBe(4)
  })

  it('counts files alone as one upload too, and an odd slot as room for one more', () => {
    expect(sendersUploads({ used: 1, max: 10 }, true)).toEqual({ used: 1, max: 5 })
    expect(sendersUploadsLeft(1, true)).toBe(1)
  })

  it('counts slots as they are without notes', () => {
    expect(sendersUploads({ used: 3, max: 10 }, false)).toEqual({ used: 3, max: 10 })
    expect(sendersUploadsLeft(7, false)).toBe(7)
  })
})
