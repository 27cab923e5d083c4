/**
 * The answer to a counted download, shared by GET /api/download/:id and GET /api/inbox/:id/file/:uid:
 * the ciphertext streamed, or on S3 `{ url, size, fileCount }` with a presigned URL from which the
 * client fetches it (spec: What the service does, 7).
 */
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import type { BlobDelivery } from '../storage/blob-store.js'

export interface CountedDownload {
  size: number
  fileCount: number
  delivery: BlobDelivery
}

export function downloadResponse(c: Context<AppEnv>, download: CountedDownload): Response {
  const { size, fileCount, delivery } = download
  if ('url' in delivery) {
    return c.json({ url: delivery.url, size, fileCount }, 200, { 'Cache-Control': 'no-store' })
  }
  return c.body(delivery.stream, 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(size),
    'Cache-Control': 'no-store',
    'X-File-Count': String(fileCount),
  })
}
