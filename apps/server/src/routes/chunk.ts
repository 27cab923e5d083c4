/**
 * One chunk of a chunked upload, the same for normal uploads and uploads into requests (spec:
 * POST /api/upload/:id/chunk, POST /api/request/:id/upload/:uid/chunk): the index and the
 * Content-Length are admitted by the session before the body is read, the body then streams into
 * the session's intake, and the answer waits out the speed-limit delay.
 * May touch: timers (the speed-limit delay); the rest through the session layer.
 */
import { ERROR_MESSAGES, parseIntegerStrict, RECEIVED_HEADERS } from '@fileshare/protocol'
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { ChunkAdmission } from '../sessions/chunk-intake.js'
import { closing, pumpBody } from './body.js'

/** The chunk's index and Content-Length, read from its head; a bad index answers 400. */
function chunkHead(c: Context<AppEnv>): { index: number; length: number | undefined } {
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
  // Node's parser has checked the header: digits only, one value.
  const length = c.env.incoming.headers[RECEIVED_HEADERS.contentLength]
  return { index, length: length === undefined ? undefined : Number(length) }
}

/** Admits a chunk by `admit`, streams its body into the store, records it and answers. */
export async function receiveChunk(
  c: Context<AppEnv>,
  admit: (index: number, length: number | undefined) => Promise<ChunkAdmission>,
): Promise<Response> {
  const refuse = (error: unknown) => (error instanceof HttpError ? closing(c, error) : error)
  const { index, length } = chunkHead(c)
  let chunk
  try {
    chunk = await admit(index, length)
  } catch (error) {
    throw refuse(error)
  }
  try {
    await pumpBody(c, (piece) => chunk.take(piece))
    const bytesWritten = await chunk.finish()
    const delay = chunk.delayMs()
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
    return c.json({ bytesWritten }, 200)
  } catch (error) {
    throw refuse(error)
  } finally {
    chunk.release()
  }
}
