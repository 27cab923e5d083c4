/**
 * One chunk of a chunked upload, normal or into a request (spec: POST /api/upload/:id/chunk,
 * POST /api/request/:id/upload/:uid/chunk), admitted before its body is read.
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

/** Admits, stores and answers a chunk; a refusal closes the connection instead of reading on. */
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
