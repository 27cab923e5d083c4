/**
 * Removes blobs best effort: a removal that fails is remembered in the database and tried again
 * by every cleanup run, so a storage hiccup never fails a delete and never leaks a blob. The blob
 * of an item retired after a download is held, in the same table, until the presigned URL that
 * download handed out has expired, so a counted download can still be fetched.
 * May touch: table blob_deletions; the blob store (deletes).
 */
import { eq, lte } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { increment } from '../db/expressions.js'
import type { BlobStore } from '../storage/blob-store.js'

/** Added to a URL's lifetime: it is signed after the count, and S3's clock may run behind. */
export const URL_HOLD_MARGIN_MS = 60_000

/** What a cleanup step retired: records, failed blob removals queued, blobs held for a URL. */
export interface RetiredCount {
  removed: number
  queued: number
  held: number
}

export class BlobJanitor {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Removes a blob now, or queues it for the next cleanup run when that fails. */
  async remove(key: string): Promise<boolean> {
    try {
      await this.blobs.delete(key)
      return true
    } catch (error) {
      this.onError(error)
      await this.db.query
        .insert(this.db.tables.blobDeletions)
        .values({ key, queuedAt: this.now() })
        .onConflictDoNothing()
      return false
    }
  }

  /**
   * Of retired records' blobs, queues for `retry()` those a presigned URL may still fetch, and
   * answers the keys to remove now. It writes in `tx`, the transaction deleting the records: else
   * a crash between the two leaves the held blob to the orphan sweep, which does not wait.
   */
  async holdForUrls(
    tx: Executor,
    blobs: Iterable<{ id: string; lastDownloadAt: number | null }>,
  ): Promise<{ removeNow: string[]; held: number }> {
    const lifetime = this.blobs.presignedUrlLifetimeMs
    const time = this.now()
    const removeNow: string[] = []
    let held = 0
    for (const { id, lastDownloadAt } of blobs) {
      const notBefore =
        lifetime === undefined || lastDownloadAt === null
          ? 0
          : lastDownloadAt + lifetime + URL_HOLD_MARGIN_MS
      if (notBefore <= time) {
        removeNow.push(id)
        continue
      }
      await tx
        .insert(this.db.tables.blobDeletions)
        .values({ key: id, queuedAt: time, notBefore })
        .onConflictDoNothing()
      held++
    }
    return { removeNow, held }
  }

  /** Removes the blobs of `keys` one after another; answers how many were queued instead. */
  async removeAll(keys: Iterable<string>): Promise<number> {
    let queued = 0
    for (const key of keys) {
      if (!(await this.remove(key))) queued++
    }
    return queued
  }

  /** Tries every queued removal that is due; answers how many succeeded. */
  async retry(): Promise<number> {
    const { blobDeletions } = this.db.tables
    let removed = 0
    const due = await this.db.query
      .select({ key: blobDeletions.key })
      .from(blobDeletions)
      .where(lte(blobDeletions.notBefore, this.now()))
    for (const { key } of due) {
      try {
        await this.blobs.delete(key)
        await this.db.query.delete(blobDeletions).where(eq(blobDeletions.key, key))
        removed++
      } catch (error) {
        this.onError(error)
        await this.db.query
          .update(blobDeletions)
          .set({ attempts: increment(blobDeletions.attempts) })
          .where(eq(blobDeletions.key, key))
      }
    }
    return removed
  }

  /** Keys still waiting for removal, held ones included (such a blob must not be swept twice). */
  async pending(): Promise<Set<string>> {
    const { blobDeletions } = this.db.tables
    const rows = await this.db.query.select({ key: blobDeletions.key }).from(blobDeletions)
    return new Set(rows.map((r) => r.key))
  }
}
