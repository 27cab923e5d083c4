/**
 * One chunk of a chunked upload, the same for normal uploads and uploads into requests (spec:
 * POST /api/upload/:id/chunk, POST /api/request/:id/upload/:uid/chunk): the index, the body
 * within the session's chunk limit, the session layer's `writeChunk`, and the speed-limit delay.
 */
import { ERROR_MESSAGES, parseIntegerStrict } from '@fileshare/protocol'
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { UploadSession } from '../services/upload-sessions.js'
import { closing, readBodyParts } from './body.js'

const chunkTooLarge = () => new HttpError(413, ERROR_MESSAGES.chunkTooLarge)

export async function receiveChunk(
  c: Context<AppEnv>,
  session: UploadSession<unknown>,
  now: () => number,
): Promise<Response> {
  let index: number
  try {
    index = parseIntegerStrict(c.req.query('index'), {}, 'index')
  } catch {
    throw closing(
      c,
      new HttpError(400, ERROR_MESSAGES.invalidRequest, {
        details: { index: 'must be a whole number' },
      }),
    )
  }
  const body = await readBodyParts(c, session.limits.maxChunkSize, chunkTooLarge)
  const bytesWritten = await session.writeChunk(index, body.parts)
  const delay = session.throttleDelayMs(now())
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
  return c.json({ bytesWritten }, 200)
}
