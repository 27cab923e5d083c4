import { describe, expect, it } from 'vitest'

import { isZipDownload } from './archive-kind'

const file = (name: string, type = '') => ({ name, type, size: 10 })

describe('isZipDownload', () => {
  it('takes archives the client packed, and single ZIP files by name or type', () => {
    expect(isZipDownload({ archive: true, files: [file('a/b.txt')] }, 2)).toBe(true)
    expect(isZipDownload({ archive: false, files: [file('Photos.ZIP')] }, 1)).toBe(true)
    expect(isZipDownload({ archive: false, files: [file('x', 'application/zip')] }, 1)).toBe(true)
    expect(isZipDownload(null, 3)).toBe(true)
  })

  it('leaves other single files alone', () => {
    expect(
      isZipDownload({ archive: false, files: [file('report.pdf', 'application/pdf')] }, 1),
    ).toBe(false)
    expect(isZipDownload({ archive: false, files: [file('zip.txt')] }, 1)).toBe(false)
    expect(isZipDownload(null, 1)).toBe(false)
  })
})
