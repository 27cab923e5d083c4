/**
 * The link of a durable upload session to its row in the database (streamed-session-records.ts):
 * while this instance holds the session it records the points its resumable writer made durable,
 * and at the end it either gives the row up for a resume (suspend) or deletes it (remove). A
 * session of every transport but the single request is durable; its client may resume it on any
 * instance from the point recorded here.
 *
 * May touch: the upload_sessions table (through its records) and the session's resumable writer.
 */
import type { Executor } from '../db/client.js'
import type { ResumableWriter } from '../storage/blob-store.js'
import type {
  StreamedKind,
  StreamedSessionRecords,
  StreamedTransport,
} from './streamed-session-records.js'

/** What makes a session durable: its row's fixed fields. */
export interface DurableSpec {
  kind: StreamedKind
  requestId: string | null
  transport: StreamedTransport
  /** The JSON the record is made from at finalize (token hashes only). */
  context: string
  /** Whether the client asked to resume it after a lost connection or a restart (docs/api.md). */
  resumable: boolean
}

/** Where a resumed session continues. */
export interface ResumePoint {
  offset: number
  nextIndex: number
}

/** A WebSocket session records its durable point at least every this many bytes. */
export const CHECKPOINT_BYTES = 16 * 1024 * 1024

/**
 * The link of a durable session to its row: records durable points while this instance holds
 * it. WebSocket sessions record what the writer made durable on its own, at most one update at a
 * time; chunked sessions checkpoint after each chunk written in order.
 */
export class DurableLink {
  /** The point last recorded. */
  private recorded: { bytesWritten: number; nextIndex: number | null; writerState: string }
  private recording: Promise<void> | undefined

  constructor(
    readonly id: string,
    readonly transport: StreamedTransport,
    /** Whether its client asked to resume it: only then does a lost connection keep it. */
    readonly resumable: boolean,
    readonly writer: ResumableWriter,
    private readonly records: StreamedSessionRecords,
    private readonly holder: string,
    start: ResumePoint,
    writerState: string,
  ) {
    this.recorded = {
      bytesWritten: start.offset,
      nextIndex: transport === 'chunks' ? start.nextIndex : null,
      writerState,
    }
  }

  get bytesRecorded(): number {
    return this.recorded.bytesWritten
  }

  /**
   * Records the writer's durable point once it moved at least `step` bytes past the point
   * recorded; never waits for it. A call while a record is under way is taken up after it, so
   * the last move is recorded too.
   */
  follow(lastActivity: number, onError: (error: unknown) => void, step = CHECKPOINT_BYTES): void {
    if (this.ended) return
    if (this.recording) {
      this.followAgain = {
        lastActivity,
        onError,
        step: Math.min(step, this.followAgain?.step ?? step),
      }
      return
    }
    const point = this.writer.durable()
    if (point.offset - this.recorded.bytesWritten < Math.max(step, 1)) return
    this.recording = this.save({ ...point, lastActivity })
      .catch(onError)
      .finally(() => {
        this.recording = undefined
        const again = this.followAgain
        this.followAgain = undefined
        if (again) this.follow(again.lastActivity, again.onError, again.step)
      })
  }

  /** A `follow` that came while a record was under way. */
  private followAgain:
    { lastActivity: number; onError: (error: unknown) => void; step: number } | undefined
  /** Set once the session is suspended or removed: nothing more is recorded. */
  private ended = false

  /**
   * The chunks before `nextIndex` are handed to the writer, ending at `end`: makes them durable
   * and records the chunk due next, while the chunks after them are written on. Records go in
   * chunk order, whichever checkpoint finishes first.
   */
  async chunkDone(nextIndex: number, end: number, lastActivity: number): Promise<void> {
    const point = await this.writer.checkpoint()
    // S3 keeps the part being gathered in memory and reopens at part boundaries only: a chunk
    // boundary counts once it is one of those and stored.
    const kept = point.offset === end || (this.writer.reopensAnywhere && point.offset >= end)
    if (!kept) return
    this.saving = this.saving.then(() => {
      if (nextIndex <= (this.recorded.nextIndex ?? 0)) return
      return this.save({ offset: end, state: point.state, lastActivity }, nextIndex)
    })
    await this.saving
  }

  /** Chunk records in order; a failed one fails those after it. */
  private saving: Promise<void> = Promise.resolve()

  private async save(
    point: { offset: number; state: string; lastActivity: number },
    nextIndex: number | null = this.recorded.nextIndex,
  ): Promise<void> {
    const recorded = { bytesWritten: point.offset, nextIndex, writerState: point.state }
    const held = await this.records.record(this.id, this.holder, {
      ...recorded,
      lastActivity: point.lastActivity,
    })
    if (!held) throw new Error(`Upload session ${this.id} is no longer held by this instance`)
    this.recorded = recorded
  }

  /**
   * Closes the writer and gives the row up. A WebSocket session keeps every byte it received
   * that the store can make durable; a chunked one keeps its last recorded chunk boundary.
   */
  async suspend(lastActivity: number): Promise<void> {
    this.ended = true
    await this.recording
    await this.saving.catch(() => undefined)
    const point = await this.writer.suspend(this.transport === 'ws')
    const recorded =
      this.transport === 'ws'
        ? { bytesWritten: point.offset, nextIndex: null, writerState: point.state }
        : { ...this.recorded, writerState: point.state }
    await this.records.release(this.id, this.holder, { ...recorded, lastActivity })
  }

  /** Records nothing more and waits for a record under way: the session is ending. */
  async close(): Promise<void> {
    this.ended = true
    await this.recording?.catch(() => undefined)
  }

  /**
   * Deletes the row on `tx`, after `close()`: the session has ended. False when another instance
   * holds it now (this one lost its hold): the session, its quota, slot and bytes are that
   * instance's.
   */
  remove(tx: Executor): Promise<boolean> {
    return this.records.remove(this.id, this.holder, tx)
  }
}
