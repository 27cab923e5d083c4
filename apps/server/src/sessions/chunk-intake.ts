/**
 * Taking in the chunks of a chunked upload session (chunk-sessions.ts): admitting a chunk on its
 * head, storing its body as it arrives and recording it by one transaction of conditional
 * statements. A chunk cut off before its record leaves only stored bytes that its retry replaces
 * or the sweeps remove, so its retry is accepted anywhere.
 *
 * May touch: tables upload_sessions (the chunk writer's rows), chunk_parts; the blob store (chunks).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, asc, eq, gt, isNull, lte, sql, type Placeholder, type SQL } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { BlobStore, StoredChunk } from '../storage/blob-store.js'
import { ReceiveBudget } from '../limits/receive-budget.js'
import { ChunkFeed } from './chunk-feed.js'
import { DRAIN_QUIET_MS } from './upload-session.js'

export interface StoredChunkLimits {
  /** How far past the chunks recorded an index may be (FILE_UPLOAD_CONCURRENT_CHUNKS). */
  window: number
  /** Chunk requests of one session under way at once on this instance. */
  maxChunksInFlight: number
  /** Bytes per second, 0 for none. */
  speedLimit: number
  /**
   * Bytes of chunk bodies this instance holds in memory at once: bodies without a length, read
   * whole, and what feeds hold ahead of the store's writes past FEED_BYTES.
   */
  bufferBytes: number
}

/** Which sessions a route reaches: those of its file request (or of none), and its chunk limit. */
export interface SessionScope {
  requestId: string | null
  maxChunkSize: number
}

/** A chunk admitted on its head; `take`'s promise, when there is one, is the backpressure. */
export interface ChunkAdmission {
  take(piece: Uint8Array): Promise<void> | undefined
  /** Stores and records the chunk, answering `bytesWritten`. */
  finish(): Promise<number>
  /** Milliseconds the answer waits to hold the speed limit. */
  delayMs(): number
  release(): void
}

const uploadNotFound = () => new HttpError(404, ERROR_MESSAGES.uploadNotFound)
const duplicate = () => new HttpError(400, ERROR_MESSAGES.duplicateChunk)
const sizeMismatch = () => new HttpError(400, ERROR_MESSAGES.sizeMismatch)

/** Bytes of a chunk's body the feed into the store holds before it pauses the request. */
const FEED_BYTES = 256 * 1024

/** The rows of the chunk writer, chunked HTTP's; `which` among them. */
export function chunkRows(tables: Db['tables'], which?: SQL): SQL | undefined {
  return and(eq(tables.uploadSessions.transport, 'chunks'), which)
}

/** The row of open session `id` of `requestId`: another request's session is not found. */
export function openSessionIn(
  tables: Db['tables'],
  id: string | Placeholder,
  requestId: string | Placeholder | null,
) {
  const { uploadSessions: s } = tables
  const ofRequest = requestId === null ? isNull(s.requestId) : eq(s.requestId, requestId)
  return chunkRows(tables, and(eq(s.id, id), eq(s.state, 'open'), ofRequest))
}

/**
 * The statements of a chunk's admission and record, with placeholders: the admission reads the
 * session row, whether the index is taken and how many early chunks (past `next_index`) are
 * recorded; `grow` counts the chunk's bytes while they fit the declared size; `partsAfter` reads
 * the early chunks recorded after the one due, fewer than a window of them.
 */
function chunkStatements(db: Db) {
  const { uploadSessions: s, chunkParts: p } = db.tables
  const $ = (name: string) => sql`${sql.placeholder(name)}`
  const [id, index, length] = [$('id'), $('index'), $('length')]
  const admission = (requestId: Placeholder | null) =>
    db.prepare((on) =>
      on
        .select({
          declaredSize: s.declaredSize,
          receivedBytes: s.receivedBytes,
          createdAt: s.createdAt,
          partsUpload: s.partsUpload,
          holder: s.holder,
          due: s.nextIndex,
          early: sql<number>`(select count(*) from chunk_parts where session_id = ${id} and chunk_index > ${s.nextIndex})`,
          taken: sql<number>`(select count(*) from chunk_parts where session_id = ${id} and chunk_index = ${index})`,
        })
        .from(s)
        .where(openSessionIn(db.tables, sql.placeholder('id'), requestId)),
    )
  const grown = sql`${s.receivedBytes} + ${length}`
  const row = and(eq(s.id, id), eq(s.state, 'open'))
  return {
    admit: admission(null),
    admitIn: admission(sql.placeholder('requestId')),
    grow: db.prepare((on) =>
      on
        .update(s)
        .set({ receivedBytes: grown, lastActivity: $('now') })
        .where(and(row, lte(grown, s.declaredSize)))
        .returning({
          receivedBytes: s.receivedBytes,
          nextIndex: s.nextIndex,
          bytesWritten: s.bytesWritten,
        }),
    ),
    insertPart: db.prepare((on) =>
      on
        .insert(p)
        .values({
          sessionId: id,
          chunkIndex: index,
          ref: $('ref'),
          size: $('size'),
          etag: $('etag'),
        })
        .onConflictDoNothing()
        .returning({ chunkIndex: p.chunkIndex }),
    ),
    partsAfter: db.prepare((on) =>
      on
        .select({ index: p.chunkIndex, size: p.size })
        .from(p)
        .where(and(eq(p.sessionId, id), gt(p.chunkIndex, index)))
        .orderBy(asc(p.chunkIndex)),
    ),
    advance: db.prepare((on) =>
      on
        .update(s)
        .set({ nextIndex: $('nextIndex'), bytesWritten: $('bytesWritten') })
        .where(eq(s.id, id)),
    ),
  }
}

export class ChunkIntake {
  /** Indexes being received on this instance, per session (the limits are per instance). */
  private readonly receiving = new Map<string, Set<number>>()
  /** When each session last took a chunk here (wall clock), for a shutdown's drain. */
  private readonly activeAt = new Map<string, number>()
  /** Bytes of chunk bodies held in memory here, within `limits.bufferBytes`. */
  private readonly buffer: ReceiveBudget
  /** The statements every chunk runs, built once. */
  private readonly statements: ReturnType<typeof chunkStatements>

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly limits: StoredChunkLimits,
    private readonly now: () => number,
    /** This instance, as the holder of the sessions that end with it. */
    private readonly holder: string,
  ) {
    this.buffer = new ReceiveBudget(limits.bufferBytes)
    this.statements = chunkStatements(db)
  }

  /**
   * Admits a chunk on its head before its body is read (spec: POST /api/upload/:id/chunk): 404,
   * 400, 413 or 429 as the spec says. One statement reads the session row, whether the index is
   * taken and how many early chunks (past `next_index`) are recorded.
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
    const admission = scope.requestId === null ? this.statements.admit : this.statements.admitIn
    const [row] = await admission.run(this.db.query, { id, index, requestId: scope.requestId })
    if (!row) throw uploadNotFound()
    const { declaredSize, receivedBytes, createdAt, partsUpload } = row
    // A session held here ends with this process, so its chunks need be durable only once joined;
    // one that may resume, or is held elsewhere, needs each chunk durable as it is recorded.
    const durable = row.holder !== this.holder
    const due = row.due ?? 0
    const receiving = this.receiving.get(id) ?? new Set<number>()
    if (index < due || Number(row.taken) > 0 || receiving.has(index)) throw duplicate()
    if (declared !== undefined && row.receivedBytes + declared > row.declaredSize) {
      throw sizeMismatch()
    }
    if (receiving.size >= this.limits.maxChunksInFlight) {
      throw new HttpError(429, ERROR_MESSAGES.tooManyChunksInFlight)
    }
    // Recorded chunks past the one due count against the window, with those being received here.
    if (index !== due) {
      const receivingEarly = [...receiving].filter((i) => i > due).length
      const early = Number(row.early) + receivingEarly
      if (index > due + this.limits.window || early >= this.limits.window) {
        throw new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)
      }
    }
    receiving.add(index)
    this.receiving.set(id, receiving)
    this.activeAt.set(id, performance.now())
    let released = false
    let received = receivedBytes
    let budgeted = 0
    let length = 0
    const pieces: Uint8Array[] = []
    // With a Content-Length the body streams into the store as it arrives (the feed holds what
    // arrives while the store writes, up to the whole chunk while the buffer budget lasts, then
    // pauses the request); without one it is read whole first, within the buffer budget.
    // A body that ends early destroys the feed with an error, which the store's read reports.
    const feed =
      declared === undefined ? undefined : new ChunkFeed(FEED_BYTES, declared, this.buffer)
    const storing = feed && this.blobs.putChunk(id, index, feed, declared!, partsUpload, durable)
    // Awaited by finish; a request that ends before it only needs the failure kept quiet.
    storing?.catch(() => undefined)
    return {
      take: (piece) => {
        length += piece.length
        if (feed) {
          if (length > declared!) throw sizeMismatch()
          // A store that fails stops reading: its failure, not a drain, then ends the wait.
          if (!feed.write(piece)) return Promise.race([feed.drained(), storing]).then(() => {})
          return undefined
        }
        if (length > scope.maxChunkSize) throw new HttpError(413, ERROR_MESSAGES.chunkTooLarge)
        if (receivedBytes + length > declaredSize) throw sizeMismatch()
        if (!this.buffer.tryTake(piece.length)) {
          throw new HttpError(429, ERROR_MESSAGES.tooManyOutOfOrderChunks)
        }
        budgeted += piece.length
        pieces.push(piece)
        return undefined
      },
      finish: async () => {
        if (length === 0) throw new HttpError(400, ERROR_MESSAGES.emptyChunk)
        if (declared !== undefined && length !== declared) throw sizeMismatch()
        feed?.end()
        const stored = await (storing ??
          this.blobs.putChunk(id, index, pieces, length, partsUpload, durable))
        const recorded = await this.record(id, index, stored)
        received = recorded.received
        return recorded.written
      },
      delayMs: () => {
        if (this.limits.speedLimit <= 0) return 0
        const due = createdAt + (received / this.limits.speedLimit) * 1000
        return Math.max(0, due - this.now())
      },
      release: () => {
        if (released) return
        released = true
        pieces.length = 0
        this.buffer.give(budgeted)
        // A body that ended early fails the store's write, which leaves nothing behind.
        feed?.destroy(() => new Error('The chunk request ended before its body'))
        receiving.delete(index)
        if (receiving.size === 0) this.receiving.delete(id)
        this.activeAt.set(id, performance.now())
        this.forgetQuiet()
      },
    }
  }

  /** Sessions receiving a chunk here, or that took one within DRAIN_QUIET_MS. */
  active(): string[] {
    this.forgetQuiet()
    return [...this.activeAt.keys()]
  }

  private forgetQuiet(): void {
    const since = performance.now() - DRAIN_QUIET_MS
    for (const [id, at] of this.activeAt) {
      if (at < since && !this.receiving.has(id)) this.activeAt.delete(id)
    }
  }

  /**
   * Records a stored chunk while the session is open and within its declared size, and its index
   * new; a refusal removes the stored part. The first statement locks the session's row, so records
   * of one session on any instance run one after the other.
   */
  private async record(
    id: string,
    index: number,
    stored: StoredChunk,
  ): Promise<{ written: number; received: number }> {
    const length = stored.size
    const { uploadSessions: s } = this.db.tables
    const { grow, insertPart, partsAfter, advance } = this.statements
    try {
      return await this.db.transaction(async (tx) => {
        const [grown] = await grow.run(tx, { id, length, now: this.now() })
        if (!grown) {
          const open = await tx
            .select({ id: s.id })
            .from(s)
            .where(and(eq(s.id, id), eq(s.state, 'open')))
          throw open.length > 0 ? sizeMismatch() : uploadNotFound()
        }
        const inserted = await insertPart.run(tx, { id, index, ...stored })
        if (inserted.length === 0) throw duplicate()
        let { bytesWritten } = grown
        let nextIndex = grown.nextIndex ?? 0
        if (index === nextIndex) {
          const after = await partsAfter.run(tx, { id, index })
          nextIndex = index + 1
          bytesWritten += length
          for (const part of after) {
            if (part.index !== nextIndex) break
            nextIndex++
            bytesWritten += part.size
          }
          await advance.run(tx, { id, nextIndex, bytesWritten })
        }
        return { written: bytesWritten, received: grown.receivedBytes }
      })
    } catch (error) {
      await this.blobs.deleteChunks([stored])
      throw error
    }
  }
}
