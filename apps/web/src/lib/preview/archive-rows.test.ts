import type { ZipEntryInfo } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { archiveRows } from './archive-rows'

function entry(index: number, path: string, size = 0): ZipEntryInfo {
  return {
    index,
    path,
    directory: path.endsWith('/'),
    size,
    compressedSize: size,
    method: 0,
    encrypted: false,
    crc32: 0,
    localHeaderOffset: 0,
    versionMadeBy: 0,
    externalAttributes: 0,
    modified: new Date(0),
  }
}

describe('archiveRows', () => {
  it('nests files under their folders, folders first, each folder with its total size', () => {
    const rows = archiveRows([
      entry(0, 'b.txt', 5),
      entry(1, 'docs/z.txt', 10),
      entry(2, 'docs/img/a.png', 100),
      entry(3, 'docs/'),
      entry(4, 'empty/'),
      entry(5, 'a.txt', 1),
    ])
    expect(rows.map((r) => [r.path, r.depth, r.directory, r.size, r.index])).toEqual([
      ['docs', 0, true, 110, 3],
      ['docs/img', 1, true, 100, null],
      ['docs/img/a.png', 2, false, 100, 2],
      ['docs/z.txt', 1, false, 10, 1],
      ['empty', 0, true, 0, 4],
      ['a.txt', 0, false, 1, 5],
      ['b.txt', 0, false, 5, 0],
    ])
  })
})
