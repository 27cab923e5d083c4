/**
 * Counted downloads, shared by uploads and inbox files (spec: File upload states, "downloadCount
 * + 1 atomically"; Upload slot, "download by requester"): one conditional UPDATE takes a download
 * only while the count is below the limit and the item has not expired, then the blob is handed
 * out; a blob that cannot be handed out gives the download back. The cleanup job removes the
 * items that can no longer be downloaded the same way for both tables.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import type { Statement } from 'better-sqlite3'

import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { deliverBlob, type BlobDelivery, type BlobStore } from '../storage/blob-store.js'
import type { BlobJanitor } from './blob-janitor.js'

/** Tables whose rows carry `id`, `download_count`, `max_downloads` and `expires_at`. */
export type CountedTable = 'uploads' | 'request_uploads'

export class DownloadCounter {
  private readonly take: Statement<[string, number]>
  private readonly giveBack: Statement<[string]>
  private readonly finished: Statement<[number], { id: string }>

  constructor(
    db: Db,
    table: CountedTable,
    private readonly blobs: BlobStore,
  ) {
    // The table name is one of two constants above, never input.
    this.take = db.$client.prepare(
      `UPDATE ${table} SET download_count = download_count + 1
       WHERE id = ? AND download_count < max_downloads AND expires_at > ?`,
    )
    this.giveBack = db.$client.prepare(
      `UPDATE ${table} SET download_count = download_count - 1 WHERE id = ? AND download_count > 0`,
    )
    this.finished = db.$client.prepare(
      `DELETE FROM ${table} WHERE expires_at <= ? OR download_count >= max_downloads RETURNING id`,
    )
  }

  /**
   * Deletes the records that expired by `now` or used up their downloads in one statement, then
   * their blobs through the janitor (record first, so an id never points at a missing blob).
   */
  async removeFinished(
    now: number,
    janitor: BlobJanitor,
  ): Promise<{ removed: number; queued: number }> {
    const rows = this.finished.all(now)
    let queued = 0
    for (const { id } of rows) {
      if (!(await janitor.remove(id))) queued++
    }
    return { removed: rows.length, queued }
  }

  /** Counts one download of `id` at time `now`, or 410 when expired or used up. */
  async deliver(id: string, now: number): Promise<BlobDelivery> {
    if (this.take.run(id, now).changes !== 1) {
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
