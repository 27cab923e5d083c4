/**
 * The `offset` of a `resume` frame (docs/api.md), shared by both upload sockets.
 * May touch: nothing (pure).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { ControlFrame } from './upload-handler.js'

/** A whole number of bytes from 0; anything else is refused with 400 `Invalid request`. */
export function resumeOffset(frame: ControlFrame): number {
  const { offset } = frame
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new HttpError(400, ERROR_MESSAGES.invalidRequest, {
      details: { offset: 'must be a whole number of bytes' },
    })
  }
  return offset
}
