/**
 * The answer to a counted download, shared by GET /api/download/:id and GET /api/inbox/:id/file/:uid:
 * the ciphertext streamed, or on S3 `{ url, size, fileCount }` with a presigned URL from which the
 * client fetches it (spec: What the service does, 7).
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { Context } from 'hono'

import { ERROR_MESSAGES } from '@fileshare/protocol'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'
import type { Logger } from '../logger.js'
import { recordBytesSent, recordDownload } from '../metrics/recorder.js'
import type { BlobDelivery } from '../storage/blob-store.js'

export interface CountedDownload {
  size: number
  fileCount: number
  delivery: BlobDelivery
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
  const { size, fileCount, delivery } = download
  if ('url' in delivery) {
    recordDownload('url')
    return c.json({ url: delivery.url, size, fileCount }, 200)
  }
  const headers = {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(size),
    'X-File-Count': String(fileCount),
  }
  recordDownload('stream')
  const outgoing = c.env?.outgoing
  if (outgoing === undefined) return c.body(delivery.blob.stream(), 200, headers)
  // The blob is written straight to the Node response, past the web stream that a Response body
  // would be read through: per block, that adapter cost more CPU than the disk and the socket
  // together. writeHead merges in the headers already set on the response (the server's security
  // headers, the rate limit's).
  outgoing.writeHead(200, headers)
  // A failed read, or a stored blob of another length than recorded, has destroyed the
  // response, which the client sees at once as a cut-off body; there is nothing else to answer.
  delivery.blob
    .pipeTo(outgoing, size)
    .then(() => recordBytesSent(size))
    .catch((error: unknown) => logger.error('a download was cut off after its answer began', error))
  return RESPONSE_ALREADY_SENT
}
