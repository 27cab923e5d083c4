/**
 * What the public info of an upload and of a note share (spec: GET /api/info/:id, GET
 * /api/note/:id): the times as ISO text and the password fields a client derives its auth token
 * with.
 * May touch: nothing (pure).
 */
import { PASSWORD_ALGO, type PasswordFields } from '@fileshare/protocol'

/** Creation and expiry, from milliseconds since the epoch to the wire's ISO timestamps. */
export function infoTimes(row: { expiresAt: number; createdAt: number }) {
  return {
    expiresAt: new Date(row.expiresAt).toISOString(),
    createdAt: new Date(row.createdAt).toISOString(),
  }
}

/** The salt and algorithm of a protected item, present exactly when it has a password. */
export function passwordFields(row: {
  hasPassword: boolean
  passwordSalt: string | null
}): PasswordFields {
  return row.hasPassword
    ? { hasPassword: true, passwordSalt: row.passwordSalt!, passwordAlgo: PASSWORD_ALGO }
    : { hasPassword: false }
}
