/**
 * Counted downloads, shared by uploads and inbox files (spec: File upload states, "downloadCount
 * + 1 atomically"; Upload slot, "download by requester"): one conditional UPDATE takes a download
 * only while the count is below the limit and the item has not expired, and notes its time (the
 * blob must outlive a presigned URL handed out then: blob-janitor.ts), then the blob is handed
 * out; a blob that cannot be handed out gives the download back.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import type { Statement } from 'better-sqlite3'

import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { deliverBlob, type BlobDelivery, type BlobStore } from '../storage/blob-store.js'

/** Tables whose rows carry `id`, `download_count`, `max_downloads` and `expires_at`. */
export type CountedTable = 'uploads' | 'request_uploads'

export class DownloadCounter {
  private readonly take: Statement<[{ id: string; now: number }]>
  private readonly giveBack: Statement<[string]>

  constructor(
    db: Db,
    table: CountedTable,
    private readonly blobs: BlobStore,
  ) {
    // The table name is one of two constants above, never input.
    this.take = db.$client.prepare(
      `UPDATE ${table} SET download_count = download_count + 1, last_download_at = @now
       WHERE id = @id AND download_count < max_downloads AND expires_at > @now`,
    )
    this.giveBack = db.$client.prepare(
      `UPDATE ${table} SET download_count = download_count - 1 WHERE id = ? AND download_count > 0`,
    )
  }

  /** Counts one download of `id` at time `now`, or 410 when expired or used up. */
  async deliver(id: string, now: number): Promise<BlobDelivery> {
    if (this.take.run({ id, now }).changes !== 1) {
      throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    }
    try {
      return await deliverBlob(this.blobs, id)
    } catch (error) {
      this.giveBack.run(id)
      throw error
    }
  }
}
