/** Unlocking a file or note link: from its secret, or with the password and the server's check. */
import { describe, expect, it } from 'vitest'

import { toBase64Url } from '../encoding.js'
import { isProtocolError } from '../errors.js'
import type { FileLink } from '../crypto/link.js'
import { lockSecret } from '../crypto/password.js'
import { ApiError } from './api-error.js'
import { unlockKeys } from './password-lock.js'

const secret = new Uint8Array(32).fill(7)
const salt = new Uint8Array(32).fill(9)
const lock = await lockSecret(secret, 'hunter2')
const open = { hasPassword: false, salt: toBase64Url(salt) }
const locked = {
  hasPassword: true,
  salt: toBase64Url(salt),
  passwordSalt: toBase64Url(lock.passwordSalt),
  passwordAlgo: lock.passwordAlgo,
}
const plainLink: FileLink = { kind: 'note', id: 'n1', secret, hasPassword: false }
const lockedLink: FileLink = {
  kind: 'note',
  id: 'n1',
  secret: lock.protectedSecret,
  hasPassword: true,
}
const derive = (candidate: Uint8Array, withSalt: Uint8Array) =>
  Promise.resolve(`keys of ${toBase64Url(candidate)} with ${toBase64Url(withSalt)}`)
const KEYS = `keys of ${toBase64Url(secret)} with ${toBase64Url(salt)}`
/** A server that takes only the keys of `secret` and refuses others with 401. */
const server = (keys: string) =>
  keys === KEYS
    ? Promise.resolve({ encryptedMeta: 'sealed' })
    : Promise.reject(new ApiError(401, 'Wrong password'))

describe('unlockKeys', () => {
  it("derives an open link's keys from its secret without asking the server", async () => {
    const asked = () => Promise.reject(new Error('the server was asked'))
    expect(await unlockKeys(plainLink, open, undefined, derive, asked)).toEqual({ keys: KEYS })
  })

  it('answers the keys the password opens, and what the server answered', async () => {
    expect(await unlockKeys(lockedLink, locked, 'hunter2', derive, server)).toEqual({
      keys: KEYS,
      answer: { encryptedMeta: 'sealed' },
    })
  })

  // Security: a refused guess gives the generic wrong-password error, never the server's answer.
  it('turns the server refusing a wrong password into WRONG_PASSWORD', async () => {
    const refused: unknown = await unlockKeys(lockedLink, locked, 'hunter3', derive, server).catch(
      (error: unknown) => error,
    )
    expect(isProtocolError(refused, 'WRONG_PASSWORD')).toBe(true)
  })

  it('passes any other failure on as it is, a lockout too', async () => {
    const lockout = new ApiError(429, 'Too many attempts', { retryAfterSec: 60 })
    const failed = unlockKeys(lockedLink, locked, 'hunter2', derive, () => Promise.reject(lockout))
    await expect(failed).rejects.toBe(lockout)
  })

  it('refuses a missing password before deriving anything', async () => {
    let derived = false
    const counting = (candidate: Uint8Array, withSalt: Uint8Array) => {
      derived = true
      return derive(candidate, withSalt)
    }
    const failed = unlockKeys(lockedLink, locked, '', counting, server)
    await expect(failed).rejects.toThrow('This link needs a password')
    expect(derived).toBe(false)
  })

  // Security: a link and an item that disagree about the password are refused, not guessed at.
  it('refuses a link whose password flag the item contradicts', async () => {
    const failed: unknown = await unlockKeys(plainLink, locked, 'hunter2', derive, server).catch(
      (error: unknown) => error,
    )
    expect(isProtocolError(failed, 'BAD_LINK')).toBe(true)
  })
})
