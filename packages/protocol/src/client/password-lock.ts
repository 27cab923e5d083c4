/**
 * The password lock of a file or note link: the link carries the protected secret, the server's
 * public info the salt and algorithm. Both must agree that there is a password.
 */
import { fromBase64Url } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { unlockSecret, type PasswordLock } from '../crypto/password.js'
import type { FileLink } from '../crypto/link.js'
import { isApiError } from './api-error.js'

/** The password salt and algorithm of a protected item, or BAD_LINK when the two disagree. */
export function passwordLockOf(
  link: FileLink,
  info: { hasPassword: boolean; passwordSalt?: string; passwordAlgo?: string },
): PasswordLock | undefined {
  if (!link.hasPassword && !info.hasPassword) return undefined
  if (!link.hasPassword || !info.hasPassword || !info.passwordSalt || !info.passwordAlgo) {
    throw new ProtocolError('BAD_LINK', 'Invalid link: its password flag does not match the item')
  }
  return {
    protectedSecret: link.secret,
    passwordSalt: fromBase64Url(info.passwordSalt),
    passwordAlgo: info.passwordAlgo,
  }
}

/** The password a protected link needs; none throws ProtocolError('WRONG_PASSWORD'). */
export function requirePassword(password: string | undefined): string {
  if (!password) throw new ProtocolError('WRONG_PASSWORD', 'This link needs a password')
  return password
}

/**
 * Opens a protected file or note: Argon2id of `password` unlocks the secret, `derive` makes its
 * keys and `check` proves them to the server, whose 401 means a wrong password
 * (ProtocolError('WRONG_PASSWORD')); any other failure, a lockout's 429 too, is thrown as it is.
 */
export async function unlockWithServer<K, A>(
  lock: PasswordLock,
  password: string | undefined,
  derive: (secret: Uint8Array) => Promise<K>,
  check: (keys: K) => Promise<A>,
): Promise<{ keys: K; answer: A }> {
  const { result } = await unlockSecret(lock, requirePassword(password), async (secret) => {
    const keys = await derive(secret)
    try {
      return { keys, answer: await check(keys) }
    } catch (error) {
      if (isApiError(error, 401)) return false
      throw error
    }
  })
  return result
}
