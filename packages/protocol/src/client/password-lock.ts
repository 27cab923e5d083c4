/**
 * The password lock of a file or note link: the link carries the protected secret, the server's
 * public info the salt and algorithm. Both must agree that there is a password.
 */
import { fromBase64Url } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { unlockSecret, type PasswordLock } from '../crypto/password.js'
import type { FileLink } from '../crypto/link.js'
import { isApiError } from './api-error.js'

/** What the public info of a file or note says of its password. */
interface LockInfo {
  hasPassword: boolean
  passwordSalt?: string
  passwordAlgo?: string
}

/** The password salt and algorithm of a protected item, or BAD_LINK when the two disagree. */
function passwordLockOf(link: FileLink, info: LockInfo): PasswordLock | undefined {
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
 * The keys of a file or note link. Without a password they come from the link's secret and the
 * server is not asked. With one, Argon2id of `password` unlocks the secret, `derive` makes its
 * keys and `check` proves them to the server, whose 401 means a wrong password
 * (ProtocolError('WRONG_PASSWORD')); any other failure, a lockout's 429 too, is thrown as it is.
 * `answer` is what `check` answered.
 */
export async function unlockKeys<K, A>(
  link: FileLink,
  info: LockInfo & { salt: string },
  password: string | undefined,
  derive: (secret: Uint8Array, salt: Uint8Array) => Promise<K>,
  check: (keys: K) => Promise<A>,
): Promise<{ keys: K; answer?: A }> {
  const lock = passwordLockOf(link, info)
  const salt = fromBase64Url(info.salt)
  if (!lock) return { keys: await derive(link.secret, salt) }
  const { result } = await unlockSecret(lock, requirePassword(password), async (secret) => {
    const keys = await derive(secret, salt)
    try {
      return { keys, answer: await check(keys) }
    } catch (error) {
      if (isApiError(error, 401)) return false
      throw error
    }
  })
  return result
}
