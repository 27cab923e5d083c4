/**
 * The answer to a counted download, shared by GET /api/download/:id and GET
 * /api/inbox/:id/file/:uid: the ciphertext streamed, or on S3 `{ url, size, fileCount }` with a
 * presigned URL from which the client fetches it (spec: What the service does, 7).
 * May touch: the blob store (streams the opened blob); the log and the metrics registry.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { Context } from 'hono'

import { ERROR_MESSAGES, HEADERS, READ_GRANT_REQUEST } from '@fileshare/protocol'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { Logger } from '../logger.js'
import { recordBytesSent, recordDownload } from '../metrics/recorder.js'
import type { GrantedRead, IssuedGrant } from '../records/counted-reads.js'
import type { BlobDelivery, OpenedBlob } from '../storage/blob-store.js'

export interface CountedDownload {
  size: number
  fileCount: number
  delivery: BlobDelivery
  /** A read grant asked for with the download (docs/api.md): its headers join the answer. */
  grant?: IssuedGrant
  /** The byte range asked for with the grant: the blob holds these bytes alone, sent as 206. */
  range?: { start: number; end: number }
}

/**
 * Refuses HEAD on a counted route before anything is counted. Hono answers HEAD through the GET
 * route, and a HEAD (a link checker, a proxy probing the address) would otherwise use up a
 * download without a byte of ciphertext going out.
 */
export function refuseHead(c: Context<AppEnv>): void {
  if (c.req.method === 'HEAD') {
    throw new HttpError(405, ERROR_MESSAGES.methodNotAllowed, { headers: { Allow: 'GET' } })
  }
}

/** The two ways of reading an item on a counted route (docs/api.md, Read grants). */
export interface CountedRoute {
  /** The counted download; `withGrant` asks for a read grant, `range` for its first bytes. */
  download(withGrant: boolean, range: string | undefined): Promise<CountedDownload>
  /** A read under the presented grant, without counting. */
  readGranted(grant: string, range: string | undefined): Promise<GrantedRead>
}

/**
 * Answers a counted route: without `X-Read-Grant` the spec's download (a `Range` ignored), with
 * `X-Read-Grant: request` a download that issues a grant, with a grant token a read under it.
 */
export async function answerCounted(
  c: Context<AppEnv>,
  route: CountedRoute,
  logger: Pick<Logger, 'error'>,
): Promise<Response> {
  refuseHead(c)
  const grant = c.req.header(HEADERS.readGrant)
  if (grant === undefined || grant === READ_GRANT_REQUEST) {
    // A spec client's Range is ignored; one asked for with a grant is answered (docs/api.md).
    const range = grant === undefined ? undefined : c.req.header(HEADERS.range)
    return downloadResponse(c, await route.download(grant !== undefined, range), logger)
  }
  const read = await route.readGranted(grant, c.req.header(HEADERS.range))
  return grantedReadResponse(c, read, logger)
}

/**
 * `logger` hears of a download that failed after its 200 was sent (a failed read, damaged
 * storage): the client only sees a cut-off body, and the operator should know. A client that goes
 * away is no failure.
 */
export function downloadResponse(
  c: Context<AppEnv>,
  download: CountedDownload,
  logger: Pick<Logger, 'error'>,
): Response {
  const { size, fileCount, delivery, grant, range } = download
  if ('url' in delivery) {
    recordDownload('url')
    return c.json({ url: delivery.url, size, fileCount }, 200)
  }
  recordDownload('stream')
  const ranged = grant !== undefined
  const part = { blob: delivery.blob, size, fileCount, range, ranged }
  return blobResponse(c, part, grant, logger)
}

/** The answer to a read under a grant: 206 with its `Content-Range`, or 200 for the whole blob. */
export function grantedReadResponse(
  c: Context<AppEnv>,
  read: GrantedRead,
  logger: Pick<Logger, 'error'>,
): Response {
  const range = c.req.header(HEADERS.range) === undefined ? undefined : read
  return blobResponse(c, { ...read, range, ranged: true }, undefined, logger)
}

/** Bytes of a blob to send: all of it, or `range` of it; `ranged` offers ranges to the client. */
interface BlobPart {
  blob: OpenedBlob
  size: number
  fileCount: number
  range: { start: number; end: number } | undefined
  ranged: boolean
}

/** A blob's bytes as 200, or as 206 with their `Content-Range`; with `grant`, its headers. */
function blobResponse(
  c: Context<AppEnv>,
  part: BlobPart,
  grant: IssuedGrant | undefined,
  logger: Pick<Logger, 'error'>,
): Response {
  const { size, range } = part
  const length = range === undefined ? size : range.end - range.start
  const headers: Record<string, string> = {
    [HEADERS.contentType]: 'application/octet-stream',
    [HEADERS.contentLength]: String(length),
    [HEADERS.fileCount]: String(part.fileCount),
  }
  if (grant !== undefined) {
    headers[HEADERS.readGrant] = grant.token
    headers[HEADERS.readGrantExpires] = String(grant.expiresAt)
  }
  if (part.ranged) headers[HEADERS.acceptRanges] = 'bytes'
  if (range !== undefined) {
    headers[HEADERS.contentRange] = `bytes ${range.start}-${range.end - 1}/${size}`
  }
  return sendBlob(c, range === undefined ? 200 : 206, headers, part.blob, length, logger)
}

function sendBlob(
  c: Context<AppEnv>,
  status: 200 | 206,
  headers: Record<string, string>,
  blob: OpenedBlob,
  length: number,
  logger: Pick<Logger, 'error'>,
): Response {
  const outgoing = c.env?.outgoing
  if (outgoing === undefined) return c.body(blob.stream(), status, headers)
  // The blob is written straight to the Node response, past the web stream that a Response body
  // would be read through: per block, that adapter cost more CPU than the disk and the socket
  // together. writeHead merges in the headers already set on the response (the server's security
  // headers, the rate limit's).
  outgoing.writeHead(status, headers)
  // A failed read, or a stored blob of another length than recorded, has destroyed the
  // response, which the client sees at once as a cut-off body; there is nothing else to answer.
  blob
    .pipeTo(outgoing, length)
    .then(() => recordBytesSent(length))
    .catch((error: unknown) => logger.error('a download was cut off after its answer began', error))
  return RESPONSE_ALREADY_SENT
}
