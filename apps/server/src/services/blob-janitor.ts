/**
 * Removes blobs best effort: a removal that fails is remembered in the database and tried again
 * by every cleanup run, so a storage hiccup never fails a delete and never leaks a blob.
 */
import { eq, sql } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import { blobDeletions } from '../db/schema.js'
import type { BlobStore } from '../storage/blob-store.js'

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
      this.db
        .insert(blobDeletions)
        .values({ key, queuedAt: this.now() })
        .onConflictDoNothing()
        .run()
      return false
    }
  }

  /** Removes the blobs of `keys` one after another; answers how many were queued instead. */
  async removeAll(keys: Iterable<string>): Promise<number> {
    let queued = 0
    for (const key of keys) {
      if (!(await this.remove(key))) queued++
    }
    return queued
  }

  /** Tries every queued removal again; returns how many succeeded. */
  async retry(): Promise<number> {
    let removed = 0
    for (const { key } of this.db.select().from(blobDeletions).all()) {
      try {
        await this.blobs.delete(key)
        this.db.delete(blobDeletions).where(eq(blobDeletions.key, key)).run()
        removed++
      } catch (error) {
        this.onError(error)
        this.db
          .update(blobDeletions)
          .set({ attempts: sql`${blobDeletions.attempts} + 1` })
          .where(eq(blobDeletions.key, key))
          .run()
      }
    }
    return removed
  }

  /** Keys still waiting for removal (a blob with such a key must not be served or swept twice). */
  pending(): Set<string> {
    return new Set(
      this.db
        .select({ key: blobDeletions.key })
        .from(blobDeletions)
        .all()
        .map((r) => r.key),
    )
  }
}
