/**
 * The syntax and length of a notification email address, checked alike for the `notifyEmail` of
 * a request and for ABUSE_EMAIL at startup.
 * May touch: nothing (pure).
 */

/** RFC 5321 §4.5.3.1.3: a path is at most 256 octets, so an address at most 254. */
export const NOTIFY_EMAIL_MAX_LENGTH = 254

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/

/** A notification address, or an Error whose message says what is wrong. */
export function parseNotifyEmail(value: unknown): string {
  if (typeof value !== 'string') throw new Error('must be a string')
  if (value.length > NOTIFY_EMAIL_MAX_LENGTH) {
    throw new Error(`must be at most ${NOTIFY_EMAIL_MAX_LENGTH} characters`)
  }
  if (!EMAIL.test(value) || value.includes('..') || value.startsWith('.')) {
    throw new Error('must be an email address')
  }
  return value
}
