import { describe, expect, it } from 'vitest'

import { nameVariant, saveFolder, type DirectoryHandle } from './folder'

/** A folder holding `files` (and `folders`), as the File System Access API answers for one. */
function fakeFolder(files: string[], folders: string[] = []) {
  const created: string[] = []
  const error = (name: string) => Object.assign(new Error(name), { name })
  const handle: DirectoryHandle = {
    getFileHandle(name, options) {
      if (folders.includes(name)) return Promise.reject(error('TypeMismatchError'))
      const known = files.includes(name) || created.includes(name)
      if (!known && !options?.create) return Promise.reject(error('NotFoundError'))
      if (!known) created.push(name)
      return Promise.resolve({ createWritable: () => Promise.resolve(new WritableStream()) })
    },
  }
  return { handle, created }
}

describe('saving into a folder', () => {
  it('names variants before the extension', () => {
    expect(nameVariant('cv.pdf', 1)).toBe('cv.pdf')
    expect(nameVariant('cv.pdf', 2)).toBe('cv (2).pdf')
    expect(nameVariant('archive.tar.gz', 3)).toBe('archive.tar (3).gz')
    expect(nameVariant('README', 2)).toBe('README (2)')
    expect(nameVariant('.env', 2)).toBe('.env (2)')
  })

  it('never replaces a file in the folder or one written in the same run', async () => {
    const { handle, created } = fakeFolder(['cv.pdf', 'cv (2).pdf'], ['photos'])
    const folder = saveFolder(handle)
    expect((await folder.create('cv.pdf')).name).toBe('cv (3).pdf')
    expect((await folder.create('cv.pdf')).name).toBe('cv (4).pdf')
    expect((await folder.create('letter.txt')).name).toBe('letter.txt')
    expect((await folder.create('photos')).name).toBe('photos (2)')
    expect(created).toEqual(['cv (3).pdf', 'cv (4).pdf', 'letter.txt', 'photos (2)'])
  })

  it('passes on a failure other than a missing file', async () => {
    const folder = saveFolder({
      getFileHandle: () =>
        Promise.reject(Object.assign(new Error('gone'), { name: 'NotAllowedError' })),
    })
    await expect(folder.create('cv.pdf')).rejects.toThrow('gone')
  })
})
