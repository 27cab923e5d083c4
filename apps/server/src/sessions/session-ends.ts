/**
 * The one way an upload session ends without its upload, whichever writer wrote it (cancelled,
 * idle, its instance gone, a finalize that failed): one transaction deletes its row and recorded
 * chunks and gives back its holds (session-holds.ts); then what it wrote in the store is freed.
 *
 * May touch: tables upload_sessions and chunk_parts (deletes); the blob store (what a session
 * wrote); the quota and request slots through session-holds.ts.
 */
import type { UploadStatusTransport } from '@fileshare/protocol'
import { inArray } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import type { BlobStore, StoredChunk } from '../storage/blob-store.js'
import { holdsOfRow, type SessionHoldEnds } from './session-holds.js'

/** A session that ended here: what the metrics count of it. */
export interface EndedSession {
  transport: UploadStatusTransport
  bytesWritten: number
}

export class SessionEnds {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly holds: SessionHoldEnds,
  ) {}

  /**
   * Ends the sessions `ids` that still have a row, as failed; answers those this call ended. Every
   * store removal is tried (the sweeps take what a failure leaves); the first failure is thrown.
   */
  async end(ids: readonly string[]): Promise<EndedSession[]> {
    if (ids.length === 0) return []
    const { uploadSessions: s, chunkParts: p } = this.db.tables
    const { rows, chunks } = await this.db.transaction(async (tx) => {
      const rows = await tx
        .delete(s)
        .where(inArray(s.id, [...ids]))
        .returning({
          id: s.id,
          transport: s.transport,
          bytesWritten: s.bytesWritten,
          requestId: s.requestId,
          context: s.context,
          quota: s.quota,
          writerState: s.writerState,
          partsUpload: s.partsUpload,
        })
      for (const row of rows) await this.holds.endOn(tx, holdsOfRow(row), false)
      const ended = rows.map((row) => row.id)
      const chunks: StoredChunk[] =
        ended.length === 0
          ? []
          : await tx
              .delete(p)
              .where(inArray(p.sessionId, ended))
              .returning({ ref: p.ref, size: p.size, etag: p.etag })
      return { rows, chunks }
    })
    const freed = await Promise.allSettled([
      ...rows.map(({ id, writerState, partsUpload }) =>
        writerState !== null
          ? this.blobs.discardResumable(id, writerState)
          : partsUpload !== null
            ? this.blobs.abortChunks(id, partsUpload)
            : undefined,
      ),
      this.blobs.deleteChunks(chunks),
    ])
    const failed = freed.find((outcome) => outcome.status === 'rejected')
    if (failed) throw failed.reason
    return rows as EndedSession[]
  }
}
