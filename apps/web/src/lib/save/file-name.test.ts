import { describe, expect, it } from 'vitest'

import { sanitizeFileName, saveNameOf, saveTypeOf } from './file-name'

const names = { fallback: 'download', archiveName: 'files.zip' }

describe('saveNameOf', () => {
  it('uses the single file’s own name', () => {
    const meta = {
      archive: false,
      files: [{ name: 'report.pdf', type: 'application/pdf', size: 1 }],
    }
    expect(saveNameOf(meta, 1, names)).toBe('report.pdf')
    expect(saveTypeOf(meta, 1)).toBe('application/pdf')
  })

  it('names an archive after its one top-level folder', () => {
    const meta = {
      archive: true,
      files: [
        { name: 'photos/a.jpg', type: '', size: 1 },
        { name: 'photos/trip/b.jpg', type: '', size: 1 },
      ],
    }
    expect(saveNameOf(meta, 3, names)).toBe('photos.zip')
    expect(saveTypeOf(meta, 3)).toBe('application/zip')
  })

  it('falls back to the generic archive name for loose files', () => {
    const meta = {
      archive: true,
      files: [
        { name: 'a.txt', type: '', size: 1 },
        { name: 'b.txt', type: '', size: 1 },
      ],
    }
    expect(saveNameOf(meta, 2, names)).toBe('files.zip')
  })

  it('has a name without metadata', () => {
    expect(saveNameOf(null, 1, names)).toBe('download')
    expect(saveNameOf(null, 4, names)).toBe('download.zip')
  })
})

describe('sanitizeFileName', () => {
  it('removes separators, reserved and control characters and leading dots', () => {
    expect(sanitizeFileName('../../etc/passwd', 'x')).toBe('_.._etc_passwd')
    expect(sanitizeFileName('a<b>:c"d|e?f*g\u0001', 'x')).toBe('a_b__c_d_e_f_g_')
    expect(sanitizeFileName('.hidden', 'x')).toBe('hidden')
    expect(sanitizeFileName('...', 'x')).toBe('x')
  })

  it('shortens long names and keeps the extension', () => {
    const long = `${'a'.repeat(300)}.txt`
    const clean = sanitizeFileName(long, 'x')
    expect(clean.length).toBe(200)
    expect(clean.endsWith('.txt')).toBe(true)
  })
})
