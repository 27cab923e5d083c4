import { encryptedSize } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { downloadsLeft, entryName, entryPlainSize, entryType } from './inbox-entry'

const names = { fallback: 'download', archiveName: 'files-2026-01-02.zip' }

describe('inbox entries', () => {
  it('names a single file by its own name, an archive of one folder by the folder', () => {
    const one = {
      fileCount: 1,
      metadata: { archive: false, files: [{ name: 'a/b.pdf', type: 'application/pdf', size: 3 }] },
    }
    expect(entryName(one, names)).toBe('b.pdf')
    expect(entryType(one)).toBe('application/pdf')
    const folder = {
      fileCount: 3,
      metadata: {
        archive: true,
        files: [
          { name: 'photos/1.jpg', type: '', size: 1 },
          { name: 'photos/2.jpg', type: '', size: 1 },
        ],
      },
    }
    expect(entryName(folder, names)).toBe('photos.zip')
    expect(entryType(folder)).toBe('application/zip')
    const loose = {
      ...folder,
      metadata: {
        archive: true,
        files: [
          { name: 'x', type: '', size: 1 },
          { name: 'y', type: '', size: 1 },
        ],
      },
    }
    expect(entryName(loose, names)).toBe('files-2026-01-02.zip')
  })

  it('keeps a hostile name from leaving the download folder', () => {
    const evil = {
      fileCount: 1,
      metadata: { archive: false, files: [{ name: '../../.bashrc', type: '', size: 1 }] },
    }
    expect(entryName(evil, names)).toBe('bashrc')
  })

  it('counts what is left', () => {
    expect(downloadsLeft({ downloadCount: 2, maxDownloads: 3 })).toBe(1)
    expect(downloadsLeft({ downloadCount: 4, maxDownloads: 3 })).toBe(0)
    expect(entryPlainSize({ size: encryptedSize(123_456) })).toBe(123_456)
  })
})
