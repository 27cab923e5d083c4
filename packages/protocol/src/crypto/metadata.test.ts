import { describe, expect, it } from 'vitest'
import { deriveUploadKeys, generateSecret, generateUploadSalt } from './keys.js'
import {
  decryptMetadata,
  encryptMetadata,
  filesOf,
  isFolderEntry,
  type FileMetadata,
} from './metadata.js'

const keys = () => deriveUploadKeys(generateSecret(), generateUploadSalt())

describe('metadata', () => {
  it('round-trips and pads to whole KiB so the length hides the names', async () => {
    const { metaKey } = await keys()
    const short: FileMetadata = { archive: false, files: [{ name: 'a', type: '', size: 1 }] }
    const long: FileMetadata = {
      archive: true,
      files: [{ name: 'ü'.repeat(300), type: 'text/plain', size: 2 ** 40 }],
    }
    const a = await encryptMetadata(metaKey, short)
    const b = await encryptMetadata(metaKey, long)
    expect(a.ciphertext.length).toBe(1024 + 16)
    expect(b.ciphertext.length).toBe(1024 + 16)
    expect(a.nonce).toHaveLength(12)
    expect(await decryptMetadata(metaKey, a)).toEqual(short)
    expect(await decryptMetadata(metaKey, b)).toEqual(long)
  })

  it('fails generically with another upload key or a flipped byte', async () => {
    const sealed = await encryptMetadata((await keys()).metaKey, {
      archive: false,
      files: [{ name: 'x', type: '', size: 0 }],
    })
    await expect(decryptMetadata((await keys()).metaKey, sealed)).rejects.toMatchObject({
      code: 'DECRYPT_FAILED',
    })
  })

  it('refuses malformed metadata and one too large for the request routes', async () => {
    const { metaKey } = await keys()
    await expect(encryptMetadata(metaKey, { archive: false, files: [] })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
    await expect(
      encryptMetadata(metaKey, { archive: false, files: [{ name: 'a', type: '', size: -1 }] }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT' })
    const many = Array.from({ length: 2000 }, (_, i) => ({
      name: `folder/file-${i}.txt`,
      type: 'text/plain',
      size: i,
    }))
    await expect(encryptMetadata(metaKey, { archive: true, files: many })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })

  it('carries the files upload a note of a sender goes with, and only on a note', async () => {
    const { metaKey } = await keys()
    const note: FileMetadata = {
      archive: false,
      files: [{ name: 'note.txt', type: 'text/plain; charset=utf-8', size: 5 }],
      kind: 'note',
      with: '5b0c2d64-8f8e-4d47-9a55-1f1c3a0d7e10',
    }
    expect(await decryptMetadata(metaKey, await encryptMetadata(metaKey, note))).toEqual(note)
    await expect(encryptMetadata(metaKey, { ...note, with: '../other' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
    await expect(encryptMetadata(metaKey, { ...note, kind: 'files' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })

  it('counts the files of an archive without its folder entries', () => {
    const metadata = {
      archive: true,
      files: [
        { name: 'photos/', type: '', size: 0 },
        { name: 'photos/trip/', type: '', size: 0 },
        { name: 'photos/trip/beach.jpg', type: 'image/jpeg', size: 5 },
        { name: 'photos/empty.txt', type: 'text/plain', size: 0 },
      ],
    }
    expect(filesOf(metadata).map((f) => f.name)).toEqual([
      'photos/trip/beach.jpg',
      'photos/empty.txt',
    ])
    expect(isFolderEntry({ name: 'photos/' })).toBe(true)
  })
})
