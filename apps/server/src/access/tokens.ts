/**
 * Bearer tokens are kept only as SHA-256 hashes of their bytes and checked in constant time. The
 * tokens are 32-byte outputs of a key derivation, so a fast hash is enough: there is nothing to
 * brute-force.
 * May touch: nothing (pure).
 */
import { hash, timingSafeEqual } from 'node:crypto'

import { FILE_TOKEN_BYTES, fromBase64Url } from '@fileshare/protocol'

/** The bytes of a base64url token, or null when it is not one of an acceptable length. */
export function tokenBytes(text: string | undefined | null): Uint8Array | null {
  if (typeof text !== 'string') return null
  try {
    return fromBase64Url(text, { bytes: [...FILE_TOKEN_BYTES] })
  } catch {
    return null
  }
}

/** The stored form of a token (one-shot hashing: no Hash object per request). */
export function hashToken(bytes: Uint8Array): Buffer {
  return hash('sha256', bytes, 'buffer')
}

/** Whether a presented token matches a stored hash; a missing or malformed token never matches. */
export function tokenMatches(presented: string | undefined | null, stored: Uint8Array): boolean {
  return judgeToken(presented, stored).matches
}

/** Whether a token matches, and is one at all: only a well-formed wrong one is a guess. */
export function judgeToken(
  presented: string | undefined | null,
  stored: Uint8Array,
): { matches: boolean; wellFormed: boolean } {
  const bytes = tokenBytes(presented)
  if (bytes === null) return { matches: false, wellFormed: false }
  return { matches: hashMatches(hashToken(bytes), stored), wellFormed: true }
}

/** Whether two token hashes are equal, compared in constant time. */
export function hashMatches(hash: Uint8Array, stored: Uint8Array): boolean {
  return hash.length === stored.length && timingSafeEqual(hash, stored)
}
