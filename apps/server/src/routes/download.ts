/**
 * The answer to a counted download (GET /api/download/:id, GET /api/inbox/:id/file/:uid): the
 * ciphertext, or on S3 a presigned `{ url, size, fileCount }` (spec: What the service does, 7).
 * May touch: the blob store (streams the opened blob); the log and the metrics registry.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { Context } from 'hono'

import { ERROR_MESSAGES, HEADERS, READ_GRANT_REQUEST } from '@fileshare/protocol'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { Logger } from '../logger.js'
import { recordBytesSent, recordDownload } from '../metrics/recorder.js'
import type { DownloadResult, GrantedRead } from '../records/counted-reads.js'

/** The two ways of reading an item on a counted route (docs/api.md, Read grants). */
export interface CountedRoute {
  /** The counted download; `withGrant` asks for a read grant, `range` for its first bytes. */
  download(withGrant: boolean, range: string | undefined): Promise<DownloadResult>
  /** A read under the presented grant, without counting. */
  readGranted(grant: string, range: string | undefined): Promise<GrantedRead>
}

/**
 * Without `X-Read-Grant` the spec's download, with `X-Read-Grant: request` one that issues a grant,
 * with a grant token a read under it. `logger` hears of a download cut off after its 200.
 */
export async function answerCounted(
  c: Context<AppEnv>,
  logger: Pick<Logger, 'error'>,
  route: CountedRoute,
): Promise<Response> {
  // Hono answers HEAD through the GET route, and a HEAD (a link checker, a proxy probing the
  // address) would otherwise use up a download without a byte of ciphertext going out.
  if (c.req.method === 'HEAD') {
    throw new HttpError(405, ERROR_MESSAGES.methodNotAllowed, { headers: { Allow: 'GET' } })
  }
  const grant = c.req.header(HEADERS.readGrant)
  const range = c.req.header(HEADERS.range)
  if (grant !== undefined && grant !== READ_GRANT_REQUEST) {
    const read = await route.readGranted(grant, range)
    return sendBlob(c, range === undefined ? read : { ...read, range: read }, logger)
  }
  // A spec client's Range is ignored; one asked for with a grant is answered (docs/api.md).
  const withGrant = grant !== undefined
  const download = await route.download(withGrant, withGrant ? range : undefined)
  const { size, fileCount, delivery } = download
  if ('url' in delivery) {
    recordDownload('url')
    return c.json({ url: delivery.url, size, fileCount }, 200)
  }
  recordDownload('stream')
  return sendBlob(c, { ...download, blob: delivery.blob, offersRanges: withGrant }, logger)
}

/** A blob to send, all of it or `range` of it; `offersRanges` unless a spec download. */
type BlobPart = Pick<GrantedRead, 'blob' | 'size' | 'fileCount'> &
  Pick<DownloadResult, 'range' | 'grant'> & { offersRanges?: boolean }

/** A blob's bytes as 200, or as 206 with their `Content-Range`; with `grant`, its headers. */
function sendBlob(c: Context<AppEnv>, part: BlobPart, logger: Pick<Logger, 'error'>): Response {
  const { size, range, grant } = part
  const length = range === undefined ? size : range.end - range.start
  const status = range === undefined ? 200 : 206
  const headers: Record<string, string> = {
    [HEADERS.contentType]: 'application/octet-stream',
    [HEADERS.contentLength]: String(length),
    [HEADERS.fileCount]: String(part.fileCount),
  }
  if (grant !== undefined) {
    headers[HEADERS.readGrant] = grant.token
    headers[HEADERS.readGrantExpires] = String(grant.expiresAt)
  }
  if (part.offersRanges !== false) headers[HEADERS.acceptRanges] = 'bytes'
  if (range !== undefined) {
    headers[HEADERS.contentRange] = `bytes ${range.start}-${range.end - 1}/${size}`
  }
  const { outgoing } = c.env
  // Written straight to the Node response, past the web stream adapter, which cost more CPU than
  // the disk and the socket together; writeHead merges in the headers already set.
  outgoing.writeHead(status, headers)
  // A failed read or a blob of the wrong length destroys the response: the client sees it cut off.
  part.blob
    .pipeTo(outgoing, length)
    .then(() => recordBytesSent(length))
    .catch((error: unknown) => logger.error('a download was cut off after its answer began', error))
  return RESPONSE_ALREADY_SENT
}
