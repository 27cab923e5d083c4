import { describe, expect, it } from 'vitest'
import { deriveUploadKeys, generateSecret, generateUploadSalt } from './keys.js'
import { derivePasswordKey, lockSecret, protectSecret, unlockSecret } from './password.js'

describe('argon2id-v2', () => {
  it('derives a 32-byte key that depends on password and salt', async () => {
    const salt = new Uint8Array(16).fill(7)
    const key = await derivePasswordKey('correct horse', salt)
    expect(key).toHaveLength(32)
    expect(await derivePasswordKey('correct horse', salt)).toEqual(key)
    expect(await derivePasswordKey('correct hors', salt)).not.toEqual(key)
  })

  it('refuses other algorithms, salt sizes and an empty password', async () => {
    await expect(derivePasswordKey('pw', new Uint8Array(16), 'argon2id-v1')).rejects.toMatchObject({
      code: 'UNSUPPORTED_VERSION',
    })
    await expect(derivePasswordKey('pw', new Uint8Array(32))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
    await expect(derivePasswordKey('', new Uint8Array(16))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })

  it('unlocks with the right password and reports WRONG_PASSWORD when the server refuses', async () => {
    const secret = generateSecret()
    const salt = generateUploadSalt()
    const { authToken } = await deriveUploadKeys(secret, salt)
    const lock = await lockSecret(secret, 'hunter2')
    expect(lock.protectedSecret).not.toEqual(secret)
    expect(lock.passwordAlgo).toBe('argon2id-v2')

    // Stands in for the server: it accepts only the auth token of the real secret.
    const serverAccepts = async (candidate: Uint8Array) => {
      const keys = await deriveUploadKeys(candidate, salt)
      return keys.authToken === authToken ? keys : false
    }
    const opened = await unlockSecret(lock, 'hunter2', serverAccepts)
    expect(opened.secret).toEqual(secret)
    expect(opened.result.authToken).toBe(authToken)
    await expect(unlockSecret(lock, 'hunter3', serverAccepts)).rejects.toMatchObject({
      code: 'WRONG_PASSWORD',
      message: 'Wrong password',
    })
  })

  it('is its own inverse', () => {
    const a = generateSecret()
    const b = generateSecret()
    expect(protectSecret(protectSecret(a, b), b)).toEqual(a)
  })
})
