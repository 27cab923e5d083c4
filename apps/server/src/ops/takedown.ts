/**
 * The operator's takedown (`fileshare-admin rm`): deletes an upload, a note, or a request with
 * every upload in it, with their blobs, and leaves a tombstone so the id answers 410 "Removed by
 * the operator" rather than 404 (tombstones.ts; docs/operations.md, Abuse reports and takedown).
 * Uploads into a taken-down request that wait for a resume end with it.
 * May touch: tables uploads, notes, file_requests, request_uploads, tombstones; blob removal
 * through records/blob-janitor.ts.
 */
import { isUuid } from '@fileshare/protocol'
import { eq } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import type { BlobJanitor } from '../records/blob-janitor.js'
import { tombstoneColumns, type TombstoneKind, type Tombstones } from '../records/tombstones.js'
import {
  endWaitingRequestUploads,
  type WaitingUploadSessions,
} from '../sessions/waiting-request-uploads.js'

export interface TakedownDeps extends WaitingUploadSessions {
  db: Db
  tombstones: Tombstones
  janitor: BlobJanitor
  now: () => number
}

export class Takedown {
  constructor(private readonly deps: TakedownDeps) {}

  /**
   * Takes `id` down with the operator's `reason`; undefined when nothing has that id. An item the
   * cleanup job removed keeps its tombstone, marked as taken down. Records go in one transaction,
   * then the blobs, counted with the removals that failed and were queued.
   */
  async remove(id: string, reason: string | null) {
    if (!isUuid(id)) return undefined
    const removedAt = this.deps.now()
    const found = await this.deps.db.transaction(async (tx) => {
      const kinds = [
        () => this.removeItem(tx, 'upload', id),
        () => this.removeItem(tx, 'note', id),
        () => this.removeRequest(tx, id),
        () => this.removeTombstone(tx, id),
      ]
      for (const removeKind of kinds) {
        const removed = await removeKind()
        if (!removed) continue
        // Kept 30 days past its own expiry, and at least 30 days past the takedown.
        const expiresAt = Math.max(removed.tombstone.expiresAt, removedAt)
        const tombstone = { ...removed.tombstone, id, expiresAt, removedAt, takedownReason: reason }
        await this.deps.tombstones.bury(tx, removed.kind, [tombstone])
        return removed
      }
      return undefined
    })
    if (!found) return undefined
    // Uploads into a request that wait for a resume go with it, as when its owner deletes it.
    if (found.kind === 'request') await endWaitingRequestUploads(this.deps, id)
    const blobsQueued = await this.deps.janitor.removeAll(found.blobs)
    return { kind: found.kind, id, blobs: found.blobs.length, blobsQueued }
  }

  /** An upload goes with its blob; a note has none. */
  private async removeItem(tx: Executor, kind: 'upload' | 'note', id: string) {
    const { uploads, notes } = this.deps.db.tables
    const table = kind === 'upload' ? uploads : notes
    const [row] = await tx.delete(table).where(eq(table.id, id)).returning(tombstoneColumns(table))
    return row && { kind, tombstone: row, blobs: kind === 'upload' ? [id] : [] }
  }

  /** A request goes with its uploads; one running on a server ends at its finalize. */
  private async removeRequest(tx: Executor, id: string) {
    const { fileRequests, requestUploads } = this.deps.db.tables
    const uploads = await tx
      .delete(requestUploads)
      .where(eq(requestUploads.requestId, id))
      .returning({ id: requestUploads.id })
    const [row] = await tx.delete(fileRequests).where(eq(fileRequests.id, id)).returning({
      ownerTokenHash: fileRequests.inboxOwnerTokenHash,
      expiresAt: fileRequests.closesAt,
    })
    const blobs = uploads.map((upload) => upload.id)
    return row && { kind: 'request' as const, tombstone: row, blobs }
  }

  /** An item the cleanup job removed already: only its tombstone is left to mark. */
  private async removeTombstone(tx: Executor, id: string) {
    const { tombstones: t } = this.deps.db.tables
    const [row] = await tx
      .select({ kind: t.kind, ownerTokenHash: t.ownerTokenHash, expiresAt: t.expiresAt })
      .from(t)
      .where(eq(t.id, id))
    if (!row) return undefined
    const { kind, ...tombstone } = row
    return { kind: kind as TombstoneKind, tombstone, blobs: [] as string[] }
  }
}
