/**
 * The rows of upload sessions (table `upload_sessions`). Which instance holds a session is a
 * conditional UPDATE: a hold is taken only when the row has none or its holder's heartbeat lapsed
 * (the holder died); the sweeps claim the sessions that idled out or whose instance is gone.
 * May touch: table upload_sessions.
 */
import type { UploadStatusTransport } from '@fileshare/protocol'
import { and, eq, inArray, isNotNull, isNull, lt, ne, not, or, type SQL } from 'drizzle-orm'

import { deleteRows, type Db, type Executor } from '../db/client.js'

/** A holder that has not beaten for this long is taken for dead, and its sessions may move. */
export const HOLD_LAPSE_MS = 30_000

export type SessionKindName = 'upload' | 'request'

export interface StreamRow {
  id: string
  kind: SessionKindName
  requestId: string | null
  transport: UploadStatusTransport
  declaredSize: number
  bytesWritten: number
  nextIndex: number | null
  writerState: string
  context: string
  /** The quota hold as JSON (session-holds.ts). */
  quota: string
  resumable: boolean
  holder: string | null
  heartbeatAt: number
  lastActivity: number
  createdAt: number
}

/** A row of either writer: the chunk writer's name no writer state. */
export type SessionRow = Omit<StreamRow, 'writerState'> & { writerState: string | null }

export interface RecordedPoint {
  bytesWritten: number
  nextIndex: number | null
  writerState: string
  lastActivity: number
}

export class SessionRecords {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  private get table() {
    return this.db.tables.uploadSessions
  }

  /** The stream writer's rows; `which` among them. */
  private mine(which?: SQL): SQL | undefined {
    return and(eq(this.table.transport, 'ws'), which)
  }

  /** Writes a new row on `tx`, the transaction that takes its session's holds. */
  async insert(tx: Executor, row: StreamRow): Promise<void> {
    await tx.insert(this.table).values(row)
  }

  async find(id: string): Promise<StreamRow | undefined> {
    const [row] = await this.db.query
      .select()
      .from(this.table)
      .where(this.mine(eq(this.table.id, id)))
    return row as StreamRow | undefined
  }

  /** The row of session `id` of either writer while it is open (finalize has not claimed it). */
  async findOpen(id: string): Promise<SessionRow | undefined> {
    const t = this.table
    const [row] = await this.db.query
      .select()
      .from(t)
      .where(and(eq(t.id, id), eq(t.state, 'open')))
    return row as SessionRow | undefined
  }

  /** Takes the hold of session `id` for `holder` when it is free or its holder's lapsed. */
  async claim(id: string, holder: string): Promise<StreamRow | undefined> {
    const t = this.table
    const now = this.now()
    const [row] = await this.db.query
      .update(t)
      .set({ holder, heartbeatAt: now })
      .where(
        this.mine(and(eq(t.id, id), or(isNull(t.holder), lt(t.heartbeatAt, now - HOLD_LAPSE_MS)))),
      )
      .returning()
    return row as StreamRow | undefined
  }

  /** Records a durable point while `holder` holds the session; false when it no longer does. */
  async record(id: string, holder: string, point: RecordedPoint): Promise<boolean> {
    const t = this.table
    const updated = await this.db.query
      .update(t)
      .set({ ...point, heartbeatAt: this.now() })
      .where(and(eq(t.id, id), eq(t.holder, holder)))
      .returning({ id: t.id })
    return updated.length > 0
  }

  /** Records the last durable point and gives the hold up: the session is dormant. */
  async release(id: string, holder: string, point: RecordedPoint): Promise<void> {
    const t = this.table
    await this.db.query
      .update(t)
      .set({ ...point, holder: null })
      .where(and(eq(t.id, id), eq(t.holder, holder)))
  }

  /**
   * Keeps alive the holds of `holder` on the chunk writer's rows and on the stream writer's rows
   * it still has `open`. A row it lost track of (its suspension and its end both failed, the
   * database away) is not renewed, so its hold lapses and the sweeps end it.
   */
  async beat(holder: string, open: readonly string[]): Promise<void> {
    const t = this.table
    const kept = open.length === 0 ? undefined : inArray(t.id, [...open])
    await this.db.query
      .update(t)
      .set({ heartbeatAt: this.now() })
      .where(and(eq(t.holder, holder), or(eq(t.transport, 'chunks'), kept)))
  }

  /** Gives up every hold; at start on SQLite, whose single instance held them all. */
  async releaseAll(): Promise<void> {
    const t = this.table
    await this.db.query.update(t).set({ holder: null }).where(isNotNull(t.holder))
  }

  /** Deletes the row on `tx` while `holder` (when given) holds it; false when it was gone. */
  async remove(id: string, holder: string | undefined, tx: Executor): Promise<boolean> {
    const t = this.table
    const held = holder === undefined ? eq(t.id, id) : and(eq(t.id, id), eq(t.holder, holder))
    return (await deleteRows(tx, t, held)) > 0
  }

  /**
   * Claims the sessions idle since `before` (`requestBefore`: chunked uploads into a request) that
   * no live instance has open (a chunk writer's never is).
   */
  async claimIdle(before: number, requestBefore: number, holder: string): Promise<SessionRow[]> {
    const t = this.table
    const byRequest = and(isNotNull(t.requestId), eq(t.transport, 'chunks'))!
    return this.claimAll(holder, (now) =>
      and(
        or(
          and(byRequest, lt(t.lastActivity, requestBefore)),
          and(not(byRequest), lt(t.lastActivity, before)),
        ),
        or(
          eq(t.transport, 'chunks'),
          isNull(t.holder),
          eq(t.holder, holder),
          lt(t.heartbeatAt, now - HOLD_LAPSE_MS),
        ),
      ),
    )
  }

  /**
   * Claims the unresumable sessions whose hold lapsed, or with `all` (the only instance, starting)
   * every one not held here (spec: Upload slot inside a request, server restart).
   */
  async claimUnresumable(holder: string, all: boolean): Promise<SessionRow[]> {
    const t = this.table
    return this.claimAll(holder, (now) =>
      and(
        eq(t.resumable, false),
        all
          ? or(isNull(t.holder), ne(t.holder, holder))
          : and(ne(t.holder, holder), lt(t.heartbeatAt, now - HOLD_LAPSE_MS)),
      ),
    )
  }

  /** Takes the hold of every session `which` selects (given the time now) for `holder`. */
  private async claimAll(
    holder: string,
    which: (now: number) => SQL | undefined,
  ): Promise<SessionRow[]> {
    const now = this.now()
    const rows = await this.db.query
      .update(this.table)
      .set({ holder, heartbeatAt: now })
      .where(which(now))
      .returning()
    return rows as SessionRow[]
  }

  async ofRequest(requestId: string): Promise<SessionRow[]> {
    const rows = await this.db.query
      .select()
      .from(this.table)
      .where(eq(this.table.requestId, requestId))
    return rows as SessionRow[]
  }

  /** Ids of every session with a row, of either writer. */
  async ids(): Promise<Set<string>> {
    const rows = await this.db.query.select({ id: this.table.id }).from(this.table)
    return new Set(rows.map((row) => row.id))
  }
}
