import { describe, expect, it } from 'vitest'

import { parseByteRange } from './uploads.js'

describe('parseByteRange', () => {
  it('takes one closed or open range within the blob, cutting a last byte past the end', () => {
    expect(parseByteRange('bytes=0-0', 10)).toEqual({ start: 0, end: 1 })
    expect(parseByteRange('bytes=3-7', 10)).toEqual({ start: 3, end: 8 })
    expect(parseByteRange('bytes=9-', 10)).toEqual({ start: 9, end: 10 })
    expect(parseByteRange('bytes=4-99', 10)).toEqual({ start: 4, end: 10 })
  })

  it('refuses everything else: several ranges, suffixes, leading zeros, spaces, out of bounds', () => {
    for (const header of [
      'bytes=10-',
      'bytes=5-4',
      'bytes=0-1,3-4',
      'bytes=-5',
      'bytes=01-4',
      'bytes=0-04',
      'bytes= 0-4',
      'Bytes=0-4',
      'bytes=0-4 ',
      'bytes=',
      'bytes=99999999999999999-',
    ]) {
      expect(parseByteRange(header, 10), header).toBeNull()
    }
    expect(parseByteRange('bytes=0-', 0)).toBeNull()
  })
})
