/**
 * Small request checks shared by the services, turning protocol validator failures into 400s.
 * May touch: nothing (pure).
 */
import {
  decodeBase64,
  ERROR_MESSAGES,
  type ByteRange,
  type Decoded,
  RECEIVED_HEADERS,
} from '@fileshare/protocol'

import { HttpError } from './http-error.js'

/** 400 `Invalid request`, with what is wrong with each named field in `details`. */
export function invalid(details: Record<string, string>): HttpError {
  return new HttpError(400, ERROR_MESSAGES.invalidRequest, { details })
}

/** Whether `value` is a JSON object: neither null nor an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A declaration the protocol decoded, or its refusal (the spec's status and message) thrown. */
export function decodedOrThrow<T>(decoded: Decoded<T>): T {
  if (decoded.ok) return decoded.value
  const { status, message, details } = decoded.refusal
  throw new HttpError(status, message, details ? { details } : {})
}

/**
 * Whether a client asks to resume its upload (docs/api.md, Resuming uploads), by `X-Resumable` or
 * an `init` frame's `resumable`: absent means no, as for a spec client; anything but true or false
 * is 400 naming the field.
 */
export function parseResumable(value: unknown, transport: 'header' | 'frame'): boolean {
  const [yes, no, field] =
    transport === 'header'
      ? ['true', 'false', RECEIVED_HEADERS.resumable]
      : [true, false, 'resumable']
  if (value === undefined || value === no) return false
  if (value === yes) return true
  throw invalid({ [field]: 'must be true or false' })
}

/** The bytes of canonical padded base64 within `range` (the protocol's `decodeBase64`), or null. */
export function decodeBase64Strict(value: unknown, range: ByteRange = {}): Buffer | null {
  try {
    const bytes = decodeBase64(value, range)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  } catch {
    return null
  }
}
