/** Unlocking a protected file or note: the password opens the secret, the server checks its keys. */
import { describe, expect, it } from 'vitest'

import { toBase64Url } from '../encoding.js'
import { isProtocolError } from '../errors.js'
import { lockSecret } from '../crypto/password.js'
import { ApiError } from './api-error.js'
import { unlockWithServer } from './password-lock.js'

const secret = new Uint8Array(32).fill(7)
const lock = await lockSecret(secret, 'hunter2')
const derive = (candidate: Uint8Array) => Promise.resolve(`keys of ${toBase64Url(candidate)}`)
/** A server that takes only the keys of `secret` and refuses others with 401. */
const server = (keys: string) =>
  keys === `keys of ${toBase64Url(secret)}`
    ? Promise.resolve({ encryptedMeta: 'sealed' })
    : Promise.reject(new ApiError(401, 'Wrong password'))

describe('unlockWithServer', () => {
  it('answers the keys of the secret the password opens, and what the server answered', async () => {
    expect(await unlockWithServer(lock, 'hunter2', derive, server)).toEqual({
      keys: `keys of ${toBase64Url(secret)}`,
      answer: { encryptedMeta: 'sealed' },
    })
  })

  // Security: a refused guess gives the generic wrong-password error, never the server's answer.
  it('turns the server refusing a wrong password into WRONG_PASSWORD', async () => {
    const refused = await unlockWithServer(lock, 'hunter3', derive, server).catch((e) => e)
    expect(isProtocolError(refused, 'WRONG_PASSWORD')).toBe(true)
  })

  it('passes any other failure on as it is, a lockout too', async () => {
    const lockout = new ApiError(429, 'Too many attempts', { retryAfterSec: 60 })
    const failed = unlockWithServer(lock, 'hunter2', derive, () => Promise.reject(lockout))
    await expect(failed).rejects.toBe(lockout)
  })

  it('refuses a missing password before deriving anything', async () => {
    let derived = false
    const failed = unlockWithServer(
      lock,
      '',
      (candidate) => {
        derived = true
        return derive(candidate)
      },
      server,
    )
    await expect(failed).rejects.toThrow('This link needs a password')
    expect(derived).toBe(false)
  })
})
