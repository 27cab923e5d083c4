/**
 * One chunk of a chunked upload, the same for normal uploads and uploads into requests (spec:
 * POST /api/upload/:id/chunk, POST /api/request/:id/upload/:uid/chunk): the index and the
 * Content-Length are admitted by the session before the body is read, the body then streams into
 * the session's intake, and the answer waits out the speed-limit delay.
 */
import { ERROR_MESSAGES, parseIntegerStrict } from '@fileshare/protocol'
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { UploadSession } from '../services/upload-sessions.js'
import { closing, pumpBody } from './body.js'

export async function receiveChunk(
  c: Context<AppEnv>,
  session: UploadSession<unknown>,
  now: () => number,
): Promise<Response> {
  // Every refusal before the body is whole closes the connection instead of reading on.
  const refuse = (error: unknown) => (error instanceof HttpError ? closing(c, error) : error)
  let index: number
  try {
    index = parseIntegerStrict(c.req.query('index'), {}, 'index')
  } catch {
    throw refuse(
      new HttpError(400, ERROR_MESSAGES.invalidRequest, {
        details: { index: 'must be a whole number' },
      }),
    )
  }
  // Node's parser has checked the header: digits only, one value.
  const length = c.env.incoming.headers['content-length']
  let intake
  try {
    intake = session.admitChunk(index, length === undefined ? undefined : Number(length))
  } catch (error) {
    throw refuse(error)
  }
  try {
    await pumpBody(c, (piece) => intake.take(piece))
    const bytesWritten = await intake.finish()
    const delay = session.throttleDelayMs(now())
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
    return c.json({ bytesWritten }, 200)
  } catch (error) {
    throw refuse(error)
  } finally {
    intake.end()
  }
}
