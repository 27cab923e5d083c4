/**
 * Chunked HTTP upload sessions kept in the database, so that any instance takes a chunk, the
 * status or the finalize (PostgreSQL; SQLite runs one instance and keeps sessions in memory,
 * upload-sessions.ts), normal uploads and uploads into requests alike. Each chunk is stored as it
 * arrives (on S3 a large one goes straight into the multipart upload of the blob, made when the
 * session opens), then recorded by one transaction of conditional statements: the session must be
 * open and keep within its declared size, and the index must be new; the same transaction moves
 * `next_index` past the chunks now recorded without a gap. A chunk cut off before its record (a
 * crash) leaves no record, only stored bytes that its retry replaces or the join leaves out and
 * the sweeps remove, so its retry is accepted anywhere. Finalize claims the session atomically
 * and joins the chunks in order. What a session holds (its quota and, in a request, its slot) is named on its row and
 * given back by the transaction that deletes the row, whichever instance runs it. A session whose
 * client did not ask to resume it names the instance that opened it, and ends with that instance
 * (its stop, or its heartbeat lapsing), as the spec's sessions end with a server restart.
 */
import { once } from 'node:events'
import { PassThrough } from 'node:stream'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, or, sql } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { BlobStore, StoredChunk } from '../storage/blob-store.js'
import type { HeldQuota } from '../limits/quota.js'
import { releaseSlot } from '../requests/request-slots.js'
import { HOLD_LAPSE_MS } from './streamed-session-records.js'
import { holdsNoteSlot } from './stored-contexts.js'

export interface StoredChunkLimits {
  /** How far past the chunks recorded an index may be (FILE_UPLOAD_CONCURRENT_CHUNKS). */
  window: number
  /** Chunk requests of one session under way at once on this instance. */
  maxChunksInFlight: number
  /** Bytes per second, 0 for none. */
  speedLimit: number
}

/** Which sessions a route reaches: those of its file request (or of none), and its chunk limit. */
export interface SessionScope {
  requestId: string | null
  maxChunkSize: number
}

/** What a new session holds until it ends. */
export interface SessionOpening {
  declaredSize: number
  /** What finalize needs, as JSON (token hashes, never tokens). */
  context: string
  /** The file request whose slot the session holds, or null for a normal upload. */
  requestId: string | null
  /** The declared size held against the client's quota, or null while the quota is off. */
  quota: HeldQuota | null
  /** Whether the client asked to resume it: otherwise it ends with this instance. */
  resumable: boolean
}

/** An open session as its row says. */
export interface OpenChunkSession {
  id: string
  context: string
  declaredSize: number
  receivedBytes: number
  /** The lowest chunk index not recorded: every chunk below it is durable. */
  nextIndex: number
  /** The size of the chunks below `nextIndex`. */
  writtenBytes: number
  createdAt: number
}

/** Ending a quota hold in the transaction that ends its session (limits/quota.ts). */
export interface QuotaHolds {
  endHeld(tx: Executor, held: HeldQuota, kept: boolean): Promise<void>
}

/**
 * A chunk admitted on its head: `take` passes its body on (its promise, when there is one, is the
 * backpressure); `finish` stores and records it, answering `bytesWritten`; `release` ends it.
 */
export interface ChunkAdmission {
  take(piece: Uint8Array): Promise<void> | undefined
  finish(): Promise<number>
  /** Milliseconds the answer waits to hold the speed limit, after `record`. */
  delayMs(): number
  release(): void
}

/** A claimed session: its context and its chunks in order, for finalize to join. */
export interface ClaimedSession {
  context: string
  declaredSize: number
  /** What the store prepared for the session's chunks (blob-store.ts `startChunks`). */
  partsUpload: string | null
  chunks: StoredChunk[]
}

const uploadNotFound = () => new HttpError(404, ERROR_MESSAGES.uploadNotFound)
const duplicate = () => new HttpError(400, ERROR_MESSAGES.duplicateChunk)
const sizeMismatch = () => new HttpError(400, ERROR_MESSAGES.sizeMismatch)

/** This instance's budget of chunk bytes held in memory (FILE_UPLOAD_CHUNK_BUFFER). */
export interface ChunkBuffer {
  reserveBuffer(bytes: number): boolean
  releaseBuffer(bytes: number): void
}

const budgetUsedUp = () => new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)

/** How often this instance renews the heartbeat of the sessions bound to it. */
const HEARTBEAT_MS = 10_000

export class StoredChunkSessions {
  /** Indexes being received on this instance, per session (the limits are per instance). */
  private readonly receiving = new Map<string, Set<number>>()
  private readonly heartbeat: NodeJS.Timeout

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly limits: StoredChunkLimits,
    private readonly buffer: ChunkBuffer,
    private readonly quota: QuotaHolds,
    private readonly now: () => number,
    /** This instance, as the holder of the sessions whose client did not ask to resume. */
    private readonly holder: string,
    onError: (error: unknown) => void,
  ) {
    this.heartbeat = setInterval(() => {
      this.beat().catch(onError)
    }, HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  /** Keeps the hold of this instance's bound sessions alive. */
  private async beat(): Promise<void> {
    const { chunkSessions: s } = this.db.tables
    await this.db.query.update(s).set({ heartbeatAt: this.now() }).where(eq(s.holder, this.holder))
  }

  /** Stops renewing holds; at shutdown, before the database closes. */
  stop(): void {
    clearInterval(this.heartbeat)
  }

  /**
   * At shutdown, once no chunk or finalize is under way here: ends the open sessions bound to this
   * instance (spec: a server restart frees their slots).
   */
  async endHeld(): Promise<void> {
    const { chunkSessions: s } = this.db.tables
    const rows = await this.db.query
      .select({ id: s.id })
      .from(s)
      .where(and(eq(s.holder, this.holder), eq(s.state, 'open')))
    await this.remove(rows.map((row) => row.id))
  }

  /**
   * Ends the sessions bound to an instance whose heartbeat lapsed (it stopped without ending
   * them: killed or crashed); answers how many.
   */
  async endLapsed(): Promise<number> {
    const { chunkSessions: s } = this.db.tables
    const rows = await this.db.query
      .select({ id: s.id })
      .from(s)
      .where(
        and(
          isNotNull(s.holder),
          ne(s.holder, this.holder),
          lt(s.heartbeatAt, this.now() - HOLD_LAPSE_MS),
        ),
      )
    await this.remove(rows.map((row) => row.id))
    return rows.length
  }

  /**
   * Opens a session: what the store prepares for its chunks (S3: the multipart upload that large
   * chunks join as parts) is made here, once, and named on the row before any chunk can arrive.
   */
  async open(id: string, opening: SessionOpening): Promise<void> {
    const partsUpload = await this.blobs.startChunks(id, opening.declaredSize)
    const now = this.now()
    try {
      await this.db.query.insert(this.db.tables.chunkSessions).values({
        id,
        context: opening.context,
        declaredSize: opening.declaredSize,
        requestId: opening.requestId,
        quotaHash: opening.quota?.clientHash ?? null,
        quotaWindow: opening.quota?.windowStart ?? null,
        quotaBytes: opening.quota?.bytes ?? 0,
        partsUpload,
        holder: opening.resumable ? null : this.holder,
        heartbeatAt: now,
        state: 'open',
        createdAt: now,
        lastActivity: now,
      })
    } catch (error) {
      // An upload left by a failed abort has no session: the sweep by age takes it.
      if (partsUpload !== null) await this.blobs.abortChunks(id, partsUpload).catch(() => undefined)
      throw error
    }
  }

  /** The open session `id` within `requestId` (null: a normal upload), or undefined. */
  async find(id: string, requestId: string | null): Promise<OpenChunkSession | undefined> {
    const { chunkSessions: s } = this.db.tables
    const [row] = await this.db.query
      .select({
        id: s.id,
        context: s.context,
        declaredSize: s.declaredSize,
        receivedBytes: s.receivedBytes,
        nextIndex: s.nextIndex,
        writtenBytes: s.writtenBytes,
        createdAt: s.createdAt,
      })
      .from(s)
      .where(this.openIn(id, requestId))
    return row
  }

  /** The row of open session `id` of `requestId`: another request's session is not found. */
  private openIn(id: string, requestId: string | null) {
    const { chunkSessions: s } = this.db.tables
    return and(
      eq(s.id, id),
      eq(s.state, 'open'),
      requestId === null ? isNull(s.requestId) : eq(s.requestId, requestId),
    )
  }

  /**
   * Admits a chunk on its head before its body is read (spec: POST /api/upload/:id/chunk): 404
   * for no open session in `scope`, 400 for an empty chunk, an index already recorded or bytes
   * past the declared size, 413 past the chunk limit, 429 past the window or the requests in
   * flight. One statement reads the session row and whether the index is taken; the early chunks
   * it counts are those past `next_index`, at most a window of them.
   */
  async admit(
    id: string,
    index: number,
    declared: number | undefined,
    scope: SessionScope,
  ): Promise<ChunkAdmission> {
    if (declared === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
    if (declared !== undefined && declared > scope.maxChunkSize) {
      throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
    }
    const { chunkSessions: s } = this.db.tables
    const [row] = await this.db.query
      .select({
        declaredSize: s.declaredSize,
        receivedBytes: s.receivedBytes,
        createdAt: s.createdAt,
        partsUpload: s.partsUpload,
        due: s.nextIndex,
        early: sql<number>`(select count(*) from chunk_parts where session_id = ${id} and chunk_index > ${s.nextIndex})`,
        taken: sql<number>`(select count(*) from chunk_parts where session_id = ${id} and chunk_index = ${index})`,
      })
      .from(s)
      .where(this.openIn(id, scope.requestId))
    if (!row) throw uploadNotFound()
    const receiving = this.receiving.get(id) ?? new Set<number>()
    if (index < row.due || Number(row.taken) > 0 || receiving.has(index)) throw duplicate()
    if (declared !== undefined && row.receivedBytes + declared > row.declaredSize) {
      throw sizeMismatch()
    }
    if (receiving.size >= this.limits.maxChunksInFlight) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyChunksInFlight)
    }
    // The early-chunk window as for sessions in memory: recorded chunks past the one due count,
    // with this instance's early chunks still being received.
    if (index !== row.due) {
      const receivingEarly = [...receiving].filter((i) => i > row.due).length
      const early = Number(row.early) + receivingEarly
      if (index > row.due + this.limits.window || early >= this.limits.window) {
        throw new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)
      }
    }
    receiving.add(index)
    this.receiving.set(id, receiving)
    let released = false
    let received = row.receivedBytes
    let budgeted = 0
    let length = 0
    const pieces: Uint8Array[] = []
    // With a Content-Length the body streams into the store as it arrives; without one it is
    // read whole first, within this instance's buffer budget.
    const feed = declared === undefined ? undefined : new PassThrough()
    const storing = feed && this.blobs.putChunk(id, index, feed, declared!, row.partsUpload)
    // Awaited by finish; a request that ends before it only needs the failure kept quiet.
    storing?.catch(() => undefined)
    return {
      take: (piece) => {
        length += piece.length
        if (feed) {
          if (length > declared!) throw sizeMismatch()
          // A store that fails stops reading: its failure, not a drain, then ends the wait.
          if (!feed.write(piece)) return Promise.race([once(feed, 'drain'), storing]).then(() => {})
          return undefined
        }
        if (length > scope.maxChunkSize) throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
        if (row.receivedBytes + length > row.declaredSize) throw sizeMismatch()
        if (!this.buffer.reserveBuffer(piece.length)) throw budgetUsedUp()
        budgeted += piece.length
        pieces.push(piece)
        return undefined
      },
      finish: async () => {
        if (length === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
        if (declared !== undefined && length !== declared) throw sizeMismatch()
        feed?.end()
        const stored = await (storing ??
          this.blobs.putChunk(id, index, pieces, length, row.partsUpload))
        const recorded = await this.record(id, index, stored)
        received = recorded.received
        return recorded.written
      },
      delayMs: () => {
        if (this.limits.speedLimit <= 0) return 0
        const due = row.createdAt + (received / this.limits.speedLimit) * 1000
        return Math.max(0, due - this.now())
      },
      release: () => {
        if (released) return
        released = true
        pieces.length = 0
        this.buffer.releaseBuffer(budgeted)
        // A body that ended early fails the store's write, which leaves nothing behind.
        feed?.destroy(new Error('The chunk request ended before its body'))
        receiving.delete(index)
        if (receiving.size === 0) this.receiving.delete(id)
      },
    }
  }

  /**
   * Records a stored chunk: the session's received bytes grow only while it is open and within
   * its declared size, and the index is inserted only when new; either refusal rolls both back
   * and removes the stored part. The chunk due next moves `next_index` past it and past the early
   * chunks already recorded after it. The first statement locks the session's row, so records of
   * one session on any instance run one after the other. Answers `bytesWritten` (the bytes below
   * `next_index`, as an in-order writer counts them) and all bytes received.
   */
  private async record(
    id: string,
    index: number,
    stored: StoredChunk,
  ): Promise<{ written: number; received: number }> {
    const length = stored.size
    const { chunkSessions: s, chunkParts: p } = this.db.tables
    try {
      return await this.db.transaction(async (tx) => {
        const [grown] = await tx
          .update(s)
          .set({ receivedBytes: sql`${s.receivedBytes} + ${length}`, lastActivity: this.now() })
          .where(
            and(
              eq(s.id, id),
              eq(s.state, 'open'),
              lte(sql`${s.receivedBytes} + ${length}`, s.declaredSize),
            ),
          )
          .returning({
            receivedBytes: s.receivedBytes,
            nextIndex: s.nextIndex,
            writtenBytes: s.writtenBytes,
          })
        if (!grown) throw (await this.isOpen(tx, id)) ? sizeMismatch() : uploadNotFound()
        const inserted = await tx
          .insert(p)
          .values({ sessionId: id, chunkIndex: index, ...stored })
          .onConflictDoNothing()
          .returning({ chunkIndex: p.chunkIndex })
        if (inserted.length === 0) throw duplicate()
        let { nextIndex, writtenBytes } = grown
        if (index === nextIndex) {
          // The early chunks recorded after it, fewer than a window of them.
          const after = await tx
            .select({ index: p.chunkIndex, size: p.size })
            .from(p)
            .where(and(eq(p.sessionId, id), gt(p.chunkIndex, index)))
            .orderBy(asc(p.chunkIndex))
          nextIndex = index + 1
          writtenBytes += length
          for (const part of after) {
            if (part.index !== nextIndex) break
            nextIndex++
            writtenBytes += part.size
          }
          await tx.update(s).set({ nextIndex, writtenBytes }).where(eq(s.id, id))
        }
        return { written: writtenBytes, received: grown.receivedBytes }
      })
    } catch (error) {
      await this.blobs.deleteChunks([stored])
      throw error
    }
  }

  private async isOpen(tx: Executor, id: string): Promise<boolean> {
    const { chunkSessions: s } = this.db.tables
    const [row] = await tx
      .select({ id: s.id })
      .from(s)
      .where(and(eq(s.id, id), eq(s.state, 'open')))
    return row !== undefined
  }

  /**
   * Claims the open session for finalize, once, whichever instance asks: undefined when it is not
   * open in `requestId` (unknown, ended or claimed already). The chunks are read after the claim,
   * when no more can be recorded; a session missing bytes ends (400).
   */
  async claim(id: string, requestId: string | null): Promise<ClaimedSession | undefined> {
    const { chunkSessions: s, chunkParts: p } = this.db.tables
    const [claimed] = await this.db.query
      .update(s)
      .set({ state: 'committing', lastActivity: this.now() })
      .where(this.openIn(id, requestId))
      .returning({
        context: s.context,
        declaredSize: s.declaredSize,
        partsUpload: s.partsUpload,
      })
    if (!claimed) return undefined
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
      throw sizeMismatch()
    }
    return { ...claimed, chunks: chunks.map(({ ref, size, etag }) => ({ ref, size, etag })) }
  }

  /** Joins a claimed session's chunks into the blob `id`; a join that fails ends the session. */
  async join(id: string, claimed: ClaimedSession): Promise<void> {
    try {
      await this.blobs.joinChunks(id, claimed.chunks, claimed.partsUpload)
    } catch (error) {
      await this.remove([id])
      throw error
    }
  }

  /**
   * Ends a claimed session whose chunks are joined: `commit` writes its record in the transaction
   * that deletes the session's rows and records its quota hold as used; its stored chunks go
   * after. When `commit` or the transaction fails, the session ends as failed (remove()).
   */
  async complete<T>(id: string, commit: (tx: Executor) => Promise<T>): Promise<T> {
    const { chunkSessions: s, chunkParts: p } = this.db.tables
    let outcome: { result: T; chunks: StoredChunk[] }
    try {
      outcome = await this.db.transaction(async (tx) => {
        const result = await commit(tx)
        const [row] = await tx.delete(s).where(eq(s.id, id)).returning(heldColumns(s))
        if (row) await this.endHolds(tx, row, true)
        const chunks = await tx
          .delete(p)
          .where(eq(p.sessionId, id))
          .returning({ ref: p.ref, size: p.size, etag: p.etag })
        return { result, chunks }
      })
    } catch (error) {
      await this.remove([id])
      throw error
    }
    await this.blobs.deleteChunks(outcome.chunks)
    return outcome.result
  }

  /**
   * Ends sessions as failed (cancelled, idle, a finalize that failed): one transaction removes
   * their records and gives back their quota holds and request slots; what the store holds of
   * their chunks (their multipart uploads and chunk objects) goes after.
   */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    const { chunkSessions: s, chunkParts: p } = this.db.tables
    const { rows, chunks } = await this.db.transaction(async (tx) => {
      const rows = await tx
        .delete(s)
        .where(inArray(s.id, [...ids]))
        .returning({ id: s.id, partsUpload: s.partsUpload, ...heldColumns(s) })
      for (const row of rows) await this.endHolds(tx, row, false)
      const chunks = await tx
        .delete(p)
        .where(inArray(p.sessionId, [...ids]))
        .returning({ ref: p.ref, size: p.size, etag: p.etag })
      return { rows, chunks }
    })
    // Each is tried; what a failure leaves, the sweeps by age remove (no live session holds it).
    await Promise.all([
      ...rows.map(({ id, partsUpload }) =>
        partsUpload === null ? undefined : this.blobs.abortChunks(id, partsUpload),
      ),
      this.blobs.deleteChunks(chunks),
    ])
  }

  /** Ends what a deleted session row held: its quota (used when `kept`) and, if failed, its slot. */
  private async endHolds(tx: Executor, row: HeldRow, kept: boolean): Promise<void> {
    if (row.quotaHash !== null && row.quotaWindow !== null) {
      const held = {
        clientHash: row.quotaHash,
        windowStart: row.quotaWindow,
        bytes: row.quotaBytes,
      }
      await this.quota.endHeld(tx, held, kept)
    }
    // A finished upload's slot moves from reserved to used in its finalize's own statement.
    if (!kept && row.requestId !== null) {
      await releaseSlot(tx, this.db.tables, row.requestId, holdsNoteSlot(row.context))
    }
  }

  /**
   * Ends the sessions that received nothing for `idleMs`, or `requestIdleMs` for uploads into a
   * request; answers how many.
   */
  async expireIdle(idleMs: number, requestIdleMs: number): Promise<number> {
    const { chunkSessions: s } = this.db.tables
    const now = this.now()
    const stale = await this.db.query
      .select({ id: s.id })
      .from(s)
      .where(
        or(
          and(isNull(s.requestId), lt(s.lastActivity, now - idleMs)),
          and(isNotNull(s.requestId), lt(s.lastActivity, now - requestIdleMs)),
        ),
      )
    await this.remove(stale.map((row) => row.id))
    return stale.length
  }

  /** Ends every session of a request that is being deleted. */
  async removeOfRequest(requestId: string): Promise<void> {
    const { chunkSessions: s } = this.db.tables
    const rows = await this.db.query.select({ id: s.id }).from(s).where(eq(s.requestId, requestId))
    await this.remove(rows.map((row) => row.id))
  }

  /** Ids of every session in the database, whose stored chunks must not be swept. */
  async ids(): Promise<Set<string>> {
    const { chunkSessions: s } = this.db.tables
    const rows = await this.db.query.select({ id: s.id }).from(s)
    return new Set(rows.map((row) => row.id))
  }
}

/** What a session row holds, as its deletion returns it. */
interface HeldRow {
  requestId: string | null
  context: string
  quotaHash: string | null
  quotaWindow: number | null
  quotaBytes: number
}

function heldColumns(s: Db['tables']['chunkSessions']) {
  return {
    requestId: s.requestId,
    context: s.context,
    quotaHash: s.quotaHash,
    quotaWindow: s.quotaWindow,
    quotaBytes: s.quotaBytes,
  }
}
