/**
 * What an upload session holds until it ends: the declared size held against its client's quota
 * and, in a file request, one of its slots. The holds end here and nowhere else, inside the
 * transaction that ends the session, so that they end exactly once whichever instance or path
 * ends it; and the JSON a session row keeps its quota hold in. The one end of a session without
 * its upload, whichever writer wrote it, is here too: its row, chunks and holds in one
 * transaction, then what it wrote in the store.
 *
 * May touch: tables upload_sessions and chunk_parts (deletes); the blob store (what a session
 * wrote); the quota (limits/quota.ts) and the request's slot counters (requests/request-slots.ts)
 * on the transaction it is given.
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

/** First wait before a refused release is tried again; each failure doubles it up to the most. */
const RETRY_FIRST_MS = 500
const RETRY_MOST_MS = 30_000

/** A session that ended here: what the metrics count of it. */
export interface EndedSession {
  transport: UploadStatusTransport
  bytesWritten: number
}

/** Where a session's holds end: the database and the quota. */
export class SessionHoldEnds {
  /** Releases the database refused (it was away), tried again until it takes them. */
  private readonly unreleased = new Set<SessionHolds>()
  private retryTimer: NodeJS.Timeout | undefined
  private retryMs = RETRY_FIRST_MS

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly quota: Pick<UploadQuota, 'endHold'>,
  ) {}

  /**
   * Ends `holds` on `tx`, the transaction that ends their session: `kept` (the upload's record is
   * written in `tx`) records the quota's bytes and uses the slot; otherwise both are given back.
   */
  async endOn(tx: Executor, holds: SessionHolds, kept: boolean): Promise<void> {
    if (holds.quota !== null) await this.quota.endHold(tx, holds.quota, kept)
    if (holds.slot !== null) await endSlot(tx, this.db.tables, holds.slot, kept)
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

  /**
   * Gives back the holds of a session that never got going (no row, no record), in one
   * transaction. Nothing else would give them back, so a release the database refuses (a restart,
   * a lost connection) is kept and tried again until it succeeds; the error still goes to the
   * caller.
   */
  async release(holds: SessionHolds): Promise<void> {
    try {
      await this.end(holds, false, () => Promise.resolve(true))
    } catch (error) {
      this.unreleased.add(holds)
      this.scheduleRetry()
      throw error
    }
  }

  /** Tries the refused releases again now; answers how many are still refused. */
  async retryReleases(): Promise<number> {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    for (const holds of [...this.unreleased]) {
      try {
        await this.end(holds, false, () => Promise.resolve(true))
        this.unreleased.delete(holds)
      } catch {
        break
      }
    }
    if (this.unreleased.size === 0) this.retryMs = RETRY_FIRST_MS
    else {
      this.retryMs = Math.min(RETRY_MOST_MS, this.retryMs * 2)
      this.scheduleRetry()
    }
    return this.unreleased.size
  }

  /** Stops the retries (shutdown, after a last try). */
  stop(): void {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return
    this.retryTimer = setTimeout(() => void this.retryReleases(), this.retryMs)
    // Not what keeps the process alive: a stopping instance tries once more itself.
    this.retryTimer.unref()
  }
}
