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

function chunkIndex(c: Context<AppEnv>): number {
  try {
    return parseIntegerStrict(c.req.query('index'), {}, 'index')
  } catch {
    throw new HttpError(400, ERROR_MESSAGES.invalidRequest, {
      details: { index: 'must be a whole number' },
    })
  }
}

/**
 * Admits a chunk by `admit` from its index and Content-Length, streams its body into the store,
 * records it and answers; every refusal closes the connection instead of reading the body.
 */
export async function receiveChunk(
  c: Context<AppEnv>,
  admit: (index: number, length: number | undefined) => Promise<ChunkAdmission>,
): Promise<Response> {
  let chunk: ChunkAdmission | undefined
  try {
    const index = chunkIndex(c)
    // Node's parser has checked the header: digits only, one value.
    const length = c.env.incoming.headers[RECEIVED_HEADERS.contentLength]
    chunk = await admit(index, length === undefined ? undefined : Number(length))
    const admitted = chunk
    await pumpBody(c, (piece) => admitted.take(piece))
    const bytesWritten = await chunk.finish()
    const delay = chunk.delayMs()
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
    return c.json({ bytesWritten }, 200)
  } catch (error) {
    throw closing(c, error)
  } finally {
    chunk?.release()
  }
}
