/** Small request checks shared by the services, turning protocol validator failures into 400s. */
import { ERROR_MESSAGES, fromBase64Url, toBase64Url } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'

/** 400 `Invalid request`, with what is wrong with each named field in `details`. */
export function invalid(details: Record<string, string>): HttpError {
  return new HttpError(400, ERROR_MESSAGES.invalidRequest, { details })
}

/**
 * The canonical spelling (unpadded base64url) of a salt given as base64url on the file and note
 * routes, or null when it is not base64url of one of the sizes. Padding is accepted there and
 * dropped, so every salt is stored and answered in one spelling; non-zero trailing bits and
 * characters outside the alphabet are refused, as the protocol's decoder refuses them.
 */
export function canonicalSalt(text: unknown, sizes: readonly number[]): string | null {
  if (typeof text !== 'string' || text.length > 64) return null
  try {
    const bytes = fromBase64Url(text)
    return sizes.includes(bytes.length) ? toBase64Url(bytes) : null
  } catch {
    return null
  }
}
