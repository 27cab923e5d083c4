/**
 * Chunked HTTP upload sessions kept in the database, so that any instance takes a chunk, the
 * status or the finalize: opening a session, its finalize and every other end. Taking chunks in
 * is chunk-intake.ts. A session whose client did not ask to resume it ends with the instance that
 * opened it, as the spec's sessions end with a restart.
 *
 * May touch: tables upload_sessions (the chunk writer's rows), chunk_parts; the blob store
 * (chunks); the metrics registry.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, asc, count, eq, inArray, type SQL } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { recordUploadCompleted, recordUploadFailed } from '../metrics/recorder.js'
import type { BlobStore, StoredChunk } from '../storage/blob-store.js'
import type { FinishingSession } from './finishing-session.js'
import {
  encodeQuotaHold,
  holdsOfRow,
  type Admission,
  type SessionHoldEnds,
} from './session-holds.js'
import { chunkRows, openSessionIn, ChunkIntake, type StoredChunkLimits } from './chunk-intake.js'

export interface SessionOpening {
  declaredSize: number
  /** What finalize needs, as JSON (token hashes, never tokens). */
  context: string
  requestId: string | null
  /** Whether the client asked to resume it: otherwise it ends with this instance. */
  resumable: boolean
}

export class ChunkSessions {
  private readonly intake: ChunkIntake
  /** Admits a chunk on its head before its body is read (chunk-intake.ts). */
  readonly admit: ChunkIntake['admit']

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    limits: StoredChunkLimits,
    private readonly holds: SessionHoldEnds,
    private readonly now: () => number,
    /** This instance, as the holder of the sessions whose client did not ask to resume. */
    private readonly holder: string,
    /** The chunk size clients are asked for, by which the store lays out a session's chunks. */
    private readonly chunkSize: number,
  ) {
    this.intake = new ChunkIntake(db, blobs, limits, now, holder)
    this.admit = (...chunk) => this.intake.admit(...chunk)
  }

  /**
   * At shutdown, waits at most `timeoutMs` while an open session took a chunk here lately; answers
   * how many sessions bound here are open (0 when the database does not answer).
   */
  async drain(timeoutMs: number): Promise<number> {
    const { uploadSessions: s } = this.db.tables
    const openOf = async (which: SQL) => {
      const [row] = await this.db.query
        .select({ n: count() })
        .from(s)
        .where(chunkRows(this.db.tables, and(eq(s.state, 'open'), which)))
      return Number(row?.n ?? 0)
    }
    // Wall-clock time: the service clock may be a test's manual clock, which never moves here.
    const deadline = performance.now() + timeoutMs
    try {
      for (;;) {
        const active = this.intake.active()
        if (active.length === 0 || (await openOf(inArray(s.id, active))) === 0) break
        if (performance.now() >= deadline) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return await openOf(eq(s.holder, this.holder))
    } catch {
      return 0
    }
  }

  /** At shutdown, after the drain: ends the open sessions bound to this instance. */
  async endHeld(): Promise<void> {
    const { uploadSessions: s } = this.db.tables
    await this.remove(await this.idsOf(and(eq(s.holder, this.holder), eq(s.state, 'open'))))
  }

  /**
   * Opens a session: its row is written by the transaction that takes its holds (`admit`); then
   * what the store prepares for its chunks (S3: the multipart upload; the filesystem: the session
   * file) is made, once, and named on the row before any chunk. A failure ends the session.
   */
  async open(id: string, opening: SessionOpening, admit: Admission): Promise<void> {
    const { uploadSessions: s } = this.db.tables
    const now = this.now()
    await this.holds.take(admit, async (tx, holds) => {
      await tx.insert(s).values({
        ...opening,
        id,
        kind: opening.requestId === null ? 'upload' : 'request',
        transport: 'chunks',
        nextIndex: 0,
        quota: encodeQuotaHold(holds.quota),
        holder: opening.resumable ? null : this.holder,
        heartbeatAt: now,
        state: 'open',
        createdAt: now,
        lastActivity: now,
      })
    })
    let partsUpload: string | null = null
    try {
      partsUpload = await this.blobs.startChunks(id, opening.declaredSize, this.chunkSize)
      if (partsUpload !== null)
        await this.db.query.update(s).set({ partsUpload }).where(eq(s.id, id))
    } catch (error) {
      // A row that cannot be removed now ends at its expiry; a store upload left by a failed
      // abort has no session, and the sweep by age takes it.
      await this.remove([id]).catch(() => undefined)
      if (partsUpload !== null) await this.blobs.abortChunks(id, partsUpload).catch(() => undefined)
      throw error
    }
  }

  /** The context of open session `id` within `requestId` (null: a normal upload), or undefined. */
  async find(id: string, requestId: string | null): Promise<{ context: string } | undefined> {
    const { uploadSessions: s } = this.db.tables
    const [row] = await this.db.query
      .select({ context: s.context })
      .from(s)
      .where(openSessionIn(this.db.tables, id, requestId))
    return row
  }

  /** Open session `id` of `requestId` to finalize or cancel, its context decoded by `decode`. */
  async opened<C>(
    id: string,
    requestId: string | null,
    decode: (context: string) => C,
  ): Promise<FinishingSession<C> | undefined> {
    const open = await this.find(id, requestId)
    if (!open) return undefined
    return {
      id,
      context: decode(open.context),
      finish: (record, discard) => this.finish(id, requestId, record, discard),
      abort: () => this.remove([id]),
    }
  }

  /**
   * Finalizes session `id`: claimed once, whichever instance asks (else 404); its chunks, read
   * after the claim when no more can be recorded, joined into the blob; then one transaction
   * writes `commit`'s record and ends the session. A failure after the claim ends the session and
   * counts; one after the join calls `discard`.
   */
  private async finish<T>(
    id: string,
    requestId: string | null,
    commit: (tx: Executor) => Promise<T>,
    discard: () => Promise<unknown>,
  ): Promise<T> {
    const { uploadSessions: s, chunkParts: p } = this.db.tables
    const [claimed] = await this.db.query
      .update(s)
      .set({ state: 'committing', lastActivity: this.now() })
      .where(openSessionIn(this.db.tables, id, requestId))
      .returning({ declaredSize: s.declaredSize, partsUpload: s.partsUpload })
    if (!claimed) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    const chunks = await this.db.query
      .select({ ref: p.ref, size: p.size, etag: p.etag, index: p.chunkIndex })
      .from(p)
      .where(eq(p.sessionId, id))
      .orderBy(asc(p.chunkIndex))
    // Every declared byte, in chunks 0 to n-1 without a gap (spec: File upload states).
    const whole =
      chunks.every((chunk, i) => chunk.index === i) &&
      chunks.reduce((sum, chunk) => sum + chunk.size, 0) === claimed.declaredSize
    if (!whole) {
      await this.remove([id])
      recordUploadFailed('chunks')
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    const parts = chunks.map(({ ref, size, etag }) => ({ ref, size, etag }))
    await this.blobs.joinChunks(id, parts, claimed.partsUpload).catch(async (error: unknown) => {
      recordUploadFailed('chunks')
      await this.remove([id])
      throw error
    })
    let outcome: { result: T; chunks: StoredChunk[] }
    try {
      outcome = await this.db.transaction(async (tx) => {
        const result = await commit(tx)
        const [row] = await tx
          .delete(s)
          .where(eq(s.id, id))
          .returning({ requestId: s.requestId, context: s.context, quota: s.quota })
        // Another path ended it meanwhile (idle, its instance gone) and gave its holds back: no
        // record may stay without them.
        if (!row) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
        await this.holds.endOn(tx, holdsOfRow(row), true)
        const chunks = await tx
          .delete(p)
          .where(eq(p.sessionId, id))
          .returning({ ref: p.ref, size: p.size, etag: p.etag })
        return { result, chunks }
      })
    } catch (error) {
      try {
        await this.remove([id])
      } finally {
        recordUploadFailed('chunks')
        await discard()
      }
      throw error
    }
    // The upload is recorded: chunks a failed removal leaves (the storage away) are no longer any
    // session's, and the sweep of stored chunks removes them; failing here would discard the blob.
    await this.blobs.deleteChunks(outcome.chunks).catch(() => undefined)
    recordUploadCompleted('chunks', claimed.declaredSize, requestId !== null)
    return outcome.result
  }

  /** Ends sessions as failed (cancelled, a finalize that failed). */
  async remove(ids: readonly string[]): Promise<void> {
    await this.holds.endFailed(ids)
  }

  /** Ends every session of a request that is being deleted. */
  async removeOfRequest(requestId: string): Promise<void> {
    await this.remove(await this.idsOf(eq(this.db.tables.uploadSessions.requestId, requestId)))
  }

  private async idsOf(which?: SQL): Promise<string[]> {
    const { uploadSessions: s } = this.db.tables
    const rows = await this.db.query
      .select({ id: s.id })
      .from(s)
      .where(chunkRows(this.db.tables, which))
    return rows.map((row) => row.id)
  }
}
