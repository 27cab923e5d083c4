/**
 * Chunked HTTP upload sessions kept in the database, so that any instance takes a chunk or the
 * finalize (PostgreSQL; SQLite runs one instance and keeps sessions in memory, upload-sessions.ts).
 * Each chunk is stored as a part of its own as it arrives, then recorded by one transaction of
 * conditional statements: the session must be open and keep within its declared size, and the
 * index must be new. A chunk cut off before its record (a crash) leaves no record, only a stored
 * part the sweep removes, so its retry is accepted anywhere. Finalize claims the session
 * atomically and joins the parts in order.
 */
import { once } from 'node:events'
import { PassThrough } from 'node:stream'

import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, asc, eq, inArray, lt, lte, sql } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { BlobStore, StoredChunk } from '../storage/blob-store.js'

export interface StoredChunkLimits {
  maxChunkSize: number
  /** How far past the chunks recorded an index may be (FILE_UPLOAD_CONCURRENT_CHUNKS). */
  window: number
  /** Chunk requests of one session under way at once on this instance. */
  maxChunksInFlight: number
  /** Bytes per second, 0 for none. */
  speedLimit: number
}

/** What an open session answers at a chunk's admission. */
export interface OpenChunkSession {
  id: string
  context: string
  declaredSize: number
  receivedBytes: number
  createdAt: number
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

/** The lowest index of session `id` not recorded yet: the chunk due next. */
function dueIndex(id: string) {
  return sql`(case when not exists (select 1 from chunk_parts where session_id = ${id} and chunk_index = 0) then 0 else (select min(a.chunk_index) + 1 from chunk_parts a where a.session_id = ${id} and not exists (select 1 from chunk_parts b where b.session_id = a.session_id and b.chunk_index = a.chunk_index + 1)) end)`
}

const budgetUsedUp = () => new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)

export class StoredChunkSessions {
  /** Indexes being received on this instance, per session (the limits are per instance). */
  private readonly receiving = new Map<string, Set<number>>()

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly limits: StoredChunkLimits,
    private readonly buffer: ChunkBuffer,
    private readonly now: () => number,
  ) {}

  async open(id: string, declaredSize: number, context: string): Promise<void> {
    const now = this.now()
    await this.db.query.insert(this.db.tables.chunkSessions).values({
      id,
      context,
      declaredSize,
      state: 'open',
      createdAt: now,
      lastActivity: now,
    })
  }

  /** The open session `id`, or undefined. */
  async find(id: string): Promise<OpenChunkSession | undefined> {
    const { chunkSessions: s } = this.db.tables
    const [row] = await this.db.query
      .select({
        id: s.id,
        context: s.context,
        declaredSize: s.declaredSize,
        receivedBytes: s.receivedBytes,
        createdAt: s.createdAt,
      })
      .from(s)
      .where(and(eq(s.id, id), eq(s.state, 'open')))
    return row
  }

  /**
   * Admits a chunk on its head before its body is read (spec: POST /api/upload/:id/chunk): 404
   * for no open session, 400 for an empty chunk, an index already recorded or bytes past the
   * declared size, 413 past the chunk limit, 429 past the window or the requests in flight. One
   * statement reads the session, its chunk count and whether the index is taken.
   */
  async admit(id: string, index: number, declared: number | undefined): Promise<ChunkAdmission> {
    if (declared === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
    if (declared !== undefined && declared > this.limits.maxChunkSize) {
      throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
    }
    const { chunkSessions: s } = this.db.tables
    const due = dueIndex(id)
    const [row] = await this.db.query
      .select({
        declaredSize: s.declaredSize,
        receivedBytes: s.receivedBytes,
        createdAt: s.createdAt,
        due: sql<number>`${due}`,
        early: sql<number>`(select count(*) from chunk_parts where session_id = ${id} and chunk_index > ${due})`,
        taken: sql<number>`(select count(*) from chunk_parts where session_id = ${id} and chunk_index = ${index})`,
      })
      .from(s)
      .where(and(eq(s.id, id), eq(s.state, 'open')))
    if (!row) throw uploadNotFound()
    const receiving = this.receiving.get(id) ?? new Set<number>()
    if (Number(row.taken) > 0 || receiving.has(index)) throw duplicate()
    if (declared !== undefined && row.receivedBytes + declared > row.declaredSize) {
      throw sizeMismatch()
    }
    if (receiving.size >= this.limits.maxChunksInFlight) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyChunksInFlight)
    }
    // The early-chunk window as for sessions in memory: recorded chunks past the one due count,
    // with this instance's early chunks still being received.
    const dueIndexNow = Number(row.due)
    if (index !== dueIndexNow) {
      const receivingEarly = [...receiving].filter((i) => i > dueIndexNow).length
      const early = Number(row.early) + receivingEarly
      if (index > dueIndexNow + this.limits.window || early >= this.limits.window) {
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
    const storing = feed && this.blobs.putChunk(id, index, feed, declared!)
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
        if (length > this.limits.maxChunkSize)
          throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
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
        const stored = await (storing ?? this.blobs.putChunk(id, index, pieces, length))
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
   * Records a stored chunk: the session's received bytes grow only while it is open
   * and within its declared size, and the index is inserted only when new; either refusal rolls
   * both back and removes the stored part. Answers the bytes before the first missing index
   * (`bytesWritten`, as an in-order writer counts them) and all bytes received.
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
          .returning({ receivedBytes: s.receivedBytes })
        if (!grown) throw (await this.isOpen(tx, id)) ? sizeMismatch() : uploadNotFound()
        const inserted = await tx
          .insert(p)
          .values({ sessionId: id, chunkIndex: index, ...stored })
          .onConflictDoNothing()
          .returning({ chunkIndex: p.chunkIndex })
        if (inserted.length === 0) throw duplicate()
        // The bytes before the first missing index: those an in-order writer would have written.
        const [written] = await tx
          .select({
            bytes: sql<number>`coalesce(sum(${p.size}), 0)`,
          })
          .from(p)
          .where(and(eq(p.sessionId, id), lt(p.chunkIndex, dueIndex(id))))
        return { written: Number(written?.bytes ?? 0), received: grown.receivedBytes }
      })
    } catch (error) {
      await this.blobs.deleteChunks([stored])
      throw error
    }
  }

  private async isOpen(tx: Db['query'], id: string): Promise<boolean> {
    const { chunkSessions: s } = this.db.tables
    const [row] = await tx
      .select({ id: s.id })
      .from(s)
      .where(and(eq(s.id, id), eq(s.state, 'open')))
    return row !== undefined
  }

  /**
   * Claims the open session for finalize, once, whichever instance asks: undefined when it is not
   * open (unknown, ended or claimed already). The chunks are read after the claim, when no more
   * can be recorded.
   */
  async claim(id: string): Promise<ClaimedSession | undefined> {
    const { chunkSessions: s, chunkParts: p } = this.db.tables
    const [claimed] = await this.db.query
      .update(s)
      .set({ state: 'committing', lastActivity: this.now() })
      .where(and(eq(s.id, id), eq(s.state, 'open')))
      .returning({ context: s.context, declaredSize: s.declaredSize })
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

  /** Ends sessions and removes their records, then their stored chunks. */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    const { chunkSessions: s, chunkParts: p } = this.db.tables
    const chunks = await this.db.transaction(async (tx) => {
      await tx.delete(s).where(inArray(s.id, [...ids]))
      return tx
        .delete(p)
        .where(inArray(p.sessionId, [...ids]))
        .returning({ ref: p.ref, size: p.size, etag: p.etag })
    })
    await this.blobs.deleteChunks(chunks)
  }

  /** Ends sessions that received nothing for `idleMs`; answers how many. */
  async expireIdle(idleMs: number): Promise<number> {
    const { chunkSessions: s } = this.db.tables
    const stale = await this.db.query
      .select({ id: s.id })
      .from(s)
      .where(lt(s.lastActivity, this.now() - idleMs))
    await this.remove(stale.map((row) => row.id))
    return stale.length
  }

  /** Ids of every session in the database, whose stored chunks must not be swept. */
  async ids(): Promise<Set<string>> {
    const { chunkSessions: s } = this.db.tables
    const rows = await this.db.query.select({ id: s.id }).from(s)
    return new Set(rows.map((row) => row.id))
  }
}
