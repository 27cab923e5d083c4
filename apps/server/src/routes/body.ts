/**
 * Reading request bodies with strict limits: a body is counted while it streams and refused as
 * soon as it passes its limit, never buffered unbounded.
 */
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'

/** The raw body as a stream of chunks (the Node request itself, which applies backpressure). */
export async function* bodyChunks(c: Context<AppEnv>): AsyncGenerator<Uint8Array> {
  const incoming = c.env.incoming
  for await (const chunk of incoming) yield chunk as Buffer
}

/**
 * The whole body, at most `limit` bytes: a declared `Content-Length` over it is refused before
 * reading, and a body that grows past it while streaming is refused at that point.
 */
export async function readBody(
  c: Context<AppEnv>,
  limit: number,
  tooLarge: HttpError,
): Promise<Buffer> {
  const declared = c.req.header('content-length')
  if (declared !== undefined && Number(declared) > limit) throw closing(c, tooLarge)
  const parts: Buffer[] = []
  let length = 0
  for await (const chunk of bodyChunks(c)) {
    length += chunk.length
    if (length > limit) throw closing(c, tooLarge)
    parts.push(chunk as Buffer)
  }
  return Buffer.concat(parts, length)
}

/** Marks the answer to close the connection, so an unread body is not read to its end. */
export function closing(c: Context<AppEnv>, error: HttpError): HttpError {
  c.env.outgoing.setHeader('Connection', 'close')
  return error
}

/** The body parsed as JSON, at most `limit` bytes; anything else is 400 `Invalid request`. */
export async function readJson(
  c: Context<AppEnv>,
  limit: number,
  tooLarge: HttpError,
  invalid: HttpError,
): Promise<unknown> {
  const body = await readBody(c, limit, tooLarge)
  try {
    return JSON.parse(body.toString('utf8')) as unknown
  } catch {
    throw invalid
  }
}
