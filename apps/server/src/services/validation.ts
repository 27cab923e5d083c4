/** Small request checks shared by the services, turning protocol validator failures into 400s. */
import { ERROR_MESSAGES, fromBase64Url } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'

/** 400 `Invalid request`, with what is wrong with each named field in `details`. */
export function invalid(details: Record<string, string>): HttpError {
  return new HttpError(400, ERROR_MESSAGES.invalidRequest, { details })
}

/** Whether `text` is base64url (file and note routes: padding optional) of one of the sizes. */
export function decodeSalt(text: string | undefined, sizes: readonly number[]): boolean {
  if (typeof text !== 'string' || text.length > 64) return false
  try {
    return sizes.includes(fromBase64Url(text).length)
  } catch {
    return false
  }
}
