/**
 * Reading request bodies with strict limits: a body is counted while it streams and refused as
 * soon as it passes its limit, never buffered unbounded.
 * May touch: nothing (pure): reads the request body it is given.
 */
import { ERROR_MESSAGES, RECEIVED_HEADERS } from '@fileshare/protocol'
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import { invalid } from '../validation.js'

/**
 * Hands the body to `take` piece by piece, reading the next only once `take` has resolved. When
 * `take` throws, reading stops there (the stream is left, not destroyed, so the refusal can still
 * reach the client) and the promise rejects with its error; the rest of the body stays unread.
 */
export async function pumpBody(
  c: Context<AppEnv>,
  take: (piece: Buffer) => void | Promise<void>,
): Promise<void> {
  for await (const piece of c.env.incoming.iterator({ destroyOnReturn: false })) {
    await take(piece as Buffer)
  }
}

/** Marks a refusal's answer to close the connection, so an unread body is not read to its end. */
export function closing<E>(c: Context<AppEnv>, error: E): E {
  if (error instanceof HttpError) c.env.outgoing.setHeader('Connection', 'close')
  return error
}

const invalidRequest = () => new HttpError(400, ERROR_MESSAGES.invalidRequest)

/** `readJson`'s `malformed` for routes whose every 400 carries `details`. */
export const notJson = () => invalid({ body: 'must be JSON' })

/**
 * The JSON body of a route. 415 unless declared `application/json`: a cross-site form cannot send
 * that type, and any other makes the browser ask first (CORS preflight, never granted here), so
 * no page elsewhere can spend a signed-in browser's limits. 413 `tooLarge` past `limit`, declared
 * or streamed, the rest left unread; `malformed()` for bytes that are not JSON.
 */
export async function readJson(
  c: Context<AppEnv>,
  limit: number,
  tooLarge: string,
  malformed: () => HttpError = invalidRequest,
): Promise<unknown> {
  if (mediaType(c) !== 'application/json') throw new HttpError(415, ERROR_MESSAGES.notJson)
  const refusal = () => closing(c, new HttpError(413, tooLarge))
  const declared = c.env.incoming.headers[RECEIVED_HEADERS.contentLength]
  if (declared !== undefined && Number(declared) > limit) throw refusal()
  const parts: Buffer[] = []
  let length = 0
  await pumpBody(c, (piece) => {
    length += piece.length
    if (length > limit) throw refusal()
    parts.push(piece)
  })
  const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts, length)
  try {
    return JSON.parse(body.toString('utf8')) as unknown
  } catch {
    throw malformed()
  }
}

/** The media type of the request's `Content-Type`, lower-case, without parameters; '' if none. */
function mediaType(c: Context<AppEnv>): string {
  const type = c.env.incoming.headers[RECEIVED_HEADERS.contentType] ?? ''
  return type.split(';')[0]!.trim().toLowerCase()
}

/** `readJson`'s 415 for POST routes without a body: a form always sends a `Content-Type`. */
export function refuseFormPost(c: Context<AppEnv>): void {
  const type = mediaType(c)
  if (type !== '' && type !== 'application/json') throw new HttpError(415, ERROR_MESSAGES.notJson)
}
