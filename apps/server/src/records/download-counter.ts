/**
 * Counted downloads, shared by uploads and inbox files (spec: File upload states, "downloadCount
 * + 1 atomically"; Upload slot, "download by requester"): one conditional UPDATE takes a download
 * only while the count is below the limit and the item has not expired, and notes its time (the
 * blob must outlive a presigned URL handed out then: blob-janitor.ts), then the blob is handed
 * out; a blob that cannot be handed out gives the download back.
 * May touch: tables uploads or request_uploads (the counted one); the blob store
 * (reads).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, eq, gt, lt, sql } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import { decrement, increment } from '../db/expressions.js'
import type { requestUploads, uploads } from '../db/schema-pg.js'
import { HttpError } from '../http-error.js'
import { deliverBlob, type BlobDelivery, type BlobStore } from '../storage/blob-store.js'

/** The tables whose rows count downloads. */
export type CountedTable = typeof uploads | typeof requestUploads

const ID = sql.placeholder('id')
const NOW = sql.placeholder('now')

/** Both statements prepared once, since every download runs them. */
function prepareCounter(db: Db, table: CountedTable, name: string) {
  return {
    take: db.query
      .update(table)
      .set({ downloadCount: increment(table.downloadCount), lastDownloadAt: sql`${NOW}` })
      .where(
        and(
          eq(table.id, ID),
          lt(table.downloadCount, table.maxDownloads),
          gt(table.expiresAt, NOW),
        ),
      )
      .returning({ id: table.id })
      .prepare(`${name}_take_download`),
    giveBack: db.query
      .update(table)
      .set({ downloadCount: decrement(table.downloadCount) })
      .where(and(eq(table.id, ID), gt(table.downloadCount, 0)))
      .prepare(`${name}_give_back_download`),
  }
}

export class DownloadCounter {
  private readonly statements: ReturnType<typeof prepareCounter>

  /** `name` tells the prepared statements of each table apart (PostgreSQL names them). */
  constructor(
    db: Db,
    table: CountedTable,
    name: string,
    private readonly blobs: BlobStore,
  ) {
    this.statements = prepareCounter(db, table, name)
  }

  /**
   * Counts one download of `id` at time `now`, or 410 when expired or used up; hands out the blob,
   * or the bytes `bounds` name of it.
   */
  async deliver(
    id: string,
    now: number,
    bounds?: { start: number; end: number },
  ): Promise<BlobDelivery> {
    const [taken] = await this.statements.take.execute({ id, now })
    if (taken === undefined) {
      throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    }
    try {
      return await deliverBlob(this.blobs, id, bounds)
    } catch (error) {
      await this.giveBack(id)
      throw error
    }
  }

  /** Gives back a download counted for a handout that then failed (the blob or its grant). */
  async giveBack(id: string): Promise<void> {
    await this.statements.giveBack.execute({ id })
  }
}
