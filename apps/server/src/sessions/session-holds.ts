/**
 * What an upload session holds until it ends: the declared size held against its client's quota
 * and, in a file request, one of its slots. The holds are taken in the transaction that writes
 * the session's row and end here and nowhere else, in the transaction that ends the session, so
 * that no hold outlives its row and each ends exactly once whichever instance or path ends it;
 * and the JSON a session row keeps its quota hold in. The one end of a session without its
 * upload, whichever writer wrote it, is here too: its row, chunks and holds in one transaction,
 * then what it wrote in the store.
 *
 * May touch: tables upload_sessions and chunk_parts (deletes; rows its callers write); the blob
 * store (what a session wrote); the quota (limits/quota.ts) and the request's slot counters
 * (requests/request-slots.ts) on the transaction it is given.
 */
import type { UploadStatusTransport } from '@fileshare/protocol'
import { inArray } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import type { QuotaHold, UploadQuota } from '../limits/quota.js'
import { endSlot } from '../requests/request-slots.js'
import type { BlobStore, StoredChunk } from '../storage/blob-store.js'
import { holdsNoteSlot } from './stored-contexts.js'

export interface SessionHolds {
  /** Null while the quota is off. */
  quota: QuotaHold | null
  /** A slot of a file request (`note`: one kept for a sender's note); null for a normal upload. */
  slot: { requestId: string; note: boolean } | null
}

/** Takes a session's holds on `on`: the transaction that writes the row naming them. */
export type Admission = (on: Executor) => Promise<SessionHolds>

/** The holds a session row names (streamed and stored rows alike). */
export function holdsOfRow(row: {
  requestId: string | null
  context: string
  quota: string
}): SessionHolds {
  const slot =
    row.requestId === null ? null : { requestId: row.requestId, note: holdsNoteSlot(row.context) }
  return { quota: decodeQuotaHold(row.quota), slot }
}

/** A quota hold as a session row keeps it (`quota` column); '' while the quota is off. */
export function encodeQuotaHold(hold: QuotaHold | null): string {
  if (hold === null) return ''
  const { clientHash, windowStart, bytes } = hold
  return JSON.stringify({ clientHash, windowStart, bytes })
}

/**
 * The quota hold of a session row. Rows written before holds took this shape name the window
 * `start`; anything else that is not a hold is refused rather than guessed at.
 */
export function decodeQuotaHold(text: string): QuotaHold | null {
  if (text === '') return null
  const value = JSON.parse(text) as Record<string, unknown>
  const windowStart = value.windowStart ?? value.start
  const { clientHash, bytes } = value
  if (
    typeof clientHash !== 'string' ||
    !Number.isSafeInteger(windowStart) ||
    !Number.isSafeInteger(bytes)
  ) {
    throw new Error('A session row holds a malformed quota hold')
  }
  return { clientHash, windowStart: windowStart as number, bytes: bytes as number }
}

/** A session that ended here: what the metrics count of it. */
export interface EndedSession {
  transport: UploadStatusTransport
  bytesWritten: number
}

/** Where a session's holds are taken and end: the database and the quota. */
export class SessionHoldEnds {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly quota: Pick<UploadQuota, 'endHold'>,
  ) {}

  /**
   * Takes a session's holds with `admit` in one transaction with `write`, which writes the row
   * naming them (a session without a row has none): a refusal or a failure leaves neither behind,
   * so no hold outlives its row.
   */
  take(admit: Admission, write?: (tx: Executor, holds: SessionHolds) => Promise<void>) {
    return this.db.transaction(async (tx) => {
      const holds = await admit(tx)
      await write?.(tx, holds)
      return holds
    })
  }

  /**
   * Ends `holds` on `tx`, the transaction that ends their session: `kept` (the upload's record is
   * written in `tx`) records the quota's bytes and uses the slot; otherwise both are given back.
   */
  async endOn(tx: Executor, holds: SessionHolds, kept: boolean): Promise<void> {
    // The request's row before the quota's, in the order an admission takes them: two
    // transactions then never wait on each other's rows.
    if (holds.slot !== null) await endSlot(tx, this.db.tables, holds.slot, kept)
    if (holds.quota !== null) await this.quota.endHold(tx, holds.quota, kept)
  }

  /**
   * One transaction: `step` ends the session (writes its record, deletes its row) and answers
   * whether this call ended it; only then do its holds end. A step that throws rolls it all back.
   */
  async end(
    holds: SessionHolds,
    kept: boolean,
    step: (tx: Executor) => Promise<boolean>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await step(tx))) return false
      await this.endOn(tx, holds, kept)
      return true
    })
  }

  /**
   * Ends the sessions `ids` that still have a row, as failed (cancelled, idle, their instance gone,
   * a finalize that failed); answers those this call ended. Every store removal is tried (the
   * sweeps take what a failure leaves); the first failure is thrown.
   */
  async endFailed(ids: readonly string[]): Promise<EndedSession[]> {
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
      for (const row of rows) await this.endOn(tx, holdsOfRow(row), false)
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
