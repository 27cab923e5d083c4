import { describe, expect, it } from 'vitest'
import { deriveNoteKeys, generateNoteSalt, generateSecret } from './keys.js'
import { decryptNote, encryptNote } from './note.js'

describe('notes', () => {
  it('round-trips every content type and hides short lengths', async () => {
    const { contentKey } = await deriveNoteKeys(generateSecret(), generateNoteSalt())
    for (const type of ['text', 'markdown', 'password', 'code', 'sshkey']) {
      const text = `secret for ${type} ✓`
      const sealed = await encryptNote(contentKey, text, type)
      expect(sealed.ciphertext.length).toBe(128 + 16)
      expect(await decryptNote(contentKey, sealed, type)).toBe(text)
    }
  })

  it('stays within NOTE_MAX_SIZE + 256 bytes of ciphertext', async () => {
    const { contentKey } = await deriveNoteKeys(generateSecret(), generateNoteSalt())
    for (const size of [0, 127, 128, 1000, 65536]) {
      const sealed = await encryptNote(contentKey, 'a'.repeat(size), 'text')
      expect(sealed.ciphertext.length).toBeLessThanOrEqual(size + 256)
    }
  })

  it('binds the content type: the server cannot change how a note renders', async () => {
    const { contentKey } = await deriveNoteKeys(generateSecret(), generateNoteSalt())
    const sealed = await encryptNote(contentKey, '# title', 'text')
    await expect(decryptNote(contentKey, sealed, 'markdown')).rejects.toMatchObject({
      code: 'DECRYPT_FAILED',
    })
  })
})
