/**
 * The password lock of a file or note link: the link carries the protected secret, the server's
 * public info the salt and algorithm. Both must agree that there is a password.
 */
import { fromBase64Url } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import type { PasswordLock } from '../crypto/password.js'
import type { FileLink } from '../crypto/link.js'

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
