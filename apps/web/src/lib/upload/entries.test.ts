import { File as NodeFile } from 'node:buffer'

import { createZipStream, encryptedSize, zipSize } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import {
  filesUpload,
  fromFiles,
  fromFileSystemEntry,
  mergeEntries,
  metadataOf,
  needsArchive,
  removeTopLevel,
  toArchiveEntries,
  topLevelItems,
  withParentDirs,
  type PickedEntry,
} from './entries'

const MTIME = Date.parse('2024-05-06T07:08:10.000Z')

function file(name: string, text: string, type = 'text/plain'): File {
  return new NodeFile([text], name, { type, lastModified: MTIME }) as unknown as File
}

/** A stand-in for the browser's FileSystemEntry tree that a drop hands over. */
function fileNode(fullPath: string, content: File): FileSystemFileEntry {
  return {
    isFile: true,
    isDirectory: false,
    name: fullPath.split('/').pop()!,
    fullPath,
    file: (ok: (f: File) => void) => ok(content),
  } as unknown as FileSystemFileEntry
}

function dirNode(fullPath: string, children: FileSystemEntry[]): FileSystemDirectoryEntry {
  return {
    isFile: false,
    isDirectory: true,
    name: fullPath.split('/').pop()!,
    fullPath,
    createReader: () => {
      // Answers in batches of two, then an empty batch, as browsers do (in batches of 100).
      let offset = 0
      return {
        readEntries: (ok: (entries: FileSystemEntry[]) => void) => {
          const batch = children.slice(offset, offset + 2)
          offset += batch.length
          ok(batch)
        },
      }
    },
  } as unknown as FileSystemDirectoryEntry
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return n
    n += value.byteLength
  }
}

describe('collecting a dropped folder', () => {
  it('walks every batch of every folder, keeps empty folders and relative paths', async () => {
    const tree = dirNode('/photos', [
      fileNode('/photos/b.jpg', file('b.jpg', 'bb', 'image/jpeg')),
      fileNode('/photos/a.jpg', file('a.jpg', 'a', 'image/jpeg')),
      dirNode('/photos/empty', []),
      dirNode('/photos/trip', [fileNode('/photos/trip/c.txt', file('c.txt', 'ccc'))]),
    ])
    const picked = await fromFileSystemEntry(tree, MTIME)
    expect(picked.map((e) => [e.path, e.size])).toEqual([
      ['photos/', 0],
      ['photos/a.jpg', 1],
      ['photos/b.jpg', 2],
      ['photos/empty/', 0],
      ['photos/trip/', 0],
      ['photos/trip/c.txt', 3],
    ])
    expect(picked[1]!.lastModified).toBe(MTIME)
  })

  it('turns the collected entries into archive entries whose ZIP has the announced size', async () => {
    const tree = dirNode('/docs', [
      fileNode('/docs/readme.md', file('readme.md', '# hello')),
      dirNode('/docs/empty', []),
    ])
    const picked = mergeEntries(
      [],
      [...(await fromFileSystemEntry(tree, MTIME)), ...fromFiles([file('loose.txt', 'loose')])],
    )
    const archive = toArchiveEntries(picked)
    expect(archive.map((e) => [e.path, e.size, e.mtime.getTime(), typeof e.open])).toEqual([
      ['docs/', 0, MTIME, 'undefined'],
      ['docs/empty/', 0, MTIME, 'undefined'],
      ['docs/readme.md', 7, MTIME, 'function'],
      ['loose.txt', 5, MTIME, 'function'],
    ])
    expect(await bytesOf(createZipStream(archive))).toBe(zipSize(archive))
  })
})

describe('the picked list', () => {
  it('takes folder paths from the folder picker and adds the folders they imply', () => {
    const picked = fromFiles([
      Object.assign(file('x.txt', 'x'), { webkitRelativePath: 'top/sub/x.txt' }),
    ])
    expect(withParentDirs(picked).map((e) => e.path)).toEqual(['top/', 'top/sub/', 'top/sub/x.txt'])
  })

  it('renames a second top-level item of the same name', () => {
    const first = mergeEntries([], fromFiles([file('a.txt', '1')]))
    const both = mergeEntries(first, fromFiles([file('a.txt', '22')]))
    expect(both.map((e) => e.path)).toEqual(['a.txt', 'a (2).txt'])
    const folders = mergeEntries(both, [
      { path: 'a.txt/', size: 0, lastModified: MTIME },
      { path: 'a.txt/in', size: 0, lastModified: MTIME },
    ])
    expect(folders.map((e) => e.path)).toContain('a (3).txt/in')
  })

  it('lists top-level items with sizes, removes one with all it holds', () => {
    const picked: PickedEntry[] = withParentDirs([
      { path: 'f/a', size: 3, lastModified: 0 },
      { path: 'f/b', size: 4, lastModified: 0 },
      { path: 'g', size: 5, lastModified: 0 },
    ])
    expect(topLevelItems(picked)).toEqual([
      { name: 'f', folder: true, size: 7, files: 2 },
      { name: 'g', folder: false, size: 5, files: 1 },
    ])
    expect(removeTopLevel(picked, 'f').map((e) => e.path)).toEqual(['g'])
  })

  it('archives several files or any folder, never a single loose file', () => {
    const one = fromFiles([file('a.txt', 'a')])
    expect(needsArchive(one)).toBe(false)
    expect(metadataOf(one)).toEqual({
      archive: false,
      files: [{ name: 'a.txt', type: 'text/plain', size: 1 }],
    })
    const inFolder = withParentDirs([{ ...one[0]!, path: 'd/a.txt' }])
    expect(needsArchive(inFolder)).toBe(true)
    expect(metadataOf(inFolder).files.map((f) => f.name)).toEqual(['d/a.txt'])
  })
})

describe('filesUpload', () => {
  it('is the file itself for one file and a ZIP of every entry otherwise', () => {
    expect(filesUpload([])).toEqual({ fileCount: 0, encryptedBytes: 0 })
    expect(filesUpload([{ path: 'a.txt', size: 5, lastModified: 0 }])).toEqual({
      fileCount: 1,
      encryptedBytes: encryptedSize(5),
    })
    const entries = [
      { path: 'dir/', size: 0, lastModified: 0 },
      { path: 'dir/a.txt', size: 5, lastModified: 0 },
    ]
    const zip = zipSize([
      { path: 'dir/', size: 0, mtime: new Date(0) },
      { path: 'dir/a.txt', size: 5, mtime: new Date(0) },
    ])
    expect(filesUpload(entries)).toEqual({ fileCount: 2, encryptedBytes: encryptedSize(zip) })
  })
})
