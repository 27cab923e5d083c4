import { describe, expect, it } from 'vitest'
import { fromBase64Url } from '../encoding.js'
import { deriveNoteKeys, deriveUploadKeys, generateSecret, generateUploadSalt } from './keys.js'

describe('deriveUploadKeys', () => {
  it('derives 32-byte tokens that differ from each other and per salt', async () => {
    const secret = generateSecret()
    const a = await deriveUploadKeys(secret, generateUploadSalt())
    const b = await deriveUploadKeys(secret, generateUploadSalt())
    expect(fromBase64Url(a.authToken)).toHaveLength(32)
    expect(fromBase64Url(a.ownerToken)).toHaveLength(32)
    expect(a.authToken).not.toBe(a.ownerToken)
    expect(a.authToken).not.toBe(b.authToken)
  })

  it('keeps keys non-extractable', async () => {
    const keys = await deriveUploadKeys(generateSecret(), generateUploadSalt())
    expect(keys.fileKey.extractable).toBe(false)
    expect(keys.metaKey.extractable).toBe(false)
    await expect(globalThis.crypto.subtle.exportKey('raw', keys.fileKey)).rejects.toThrow()
  })

  it('accepts the 16-byte salts of older uploads and refuses other sizes', async () => {
    await expect(deriveUploadKeys(generateSecret(), new Uint8Array(16))).resolves.toBeDefined()
    await expect(deriveUploadKeys(generateSecret(), new Uint8Array(24))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
    await expect(deriveUploadKeys(new Uint8Array(31), new Uint8Array(32))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })

  it('separates notes from uploads for the same secret', async () => {
    const secret = generateSecret()
    const salt = new Uint8Array(16)
    const upload = await deriveUploadKeys(secret, salt)
    const note = await deriveNoteKeys(secret, salt)
    expect(note.authToken).not.toBe(upload.authToken)
    expect(note.ownerToken).not.toBe(upload.ownerToken)
    await expect(deriveNoteKeys(secret, new Uint8Array(32))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })
})
