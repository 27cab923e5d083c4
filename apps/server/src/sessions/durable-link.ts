/**
 * The link of a durable (WebSocket) upload session to its row (session-records.ts): while this
 * instance holds the session it records the points its resumable writer made durable, and at the
 * end it either gives the row up for a resume on any instance (suspend) or deletes it (remove).
 *
 * May touch: the upload_sessions table (through its records) and the session's resumable writer.
 */
import type { Executor } from '../db/client.js'
import type { ResumableWriter } from '../storage/blob-store.js'
import type { SessionKindName, SessionRecords } from './session-records.js'

/** What makes a session durable: its row's fixed fields. */
export interface DurableSpec {
  kind: SessionKindName
  requestId: string | null
  /** The JSON the record is made from at finalize (token hashes only). */
  context: string
  /** Whether the client asked to resume it (docs/api.md). */
  resumable: boolean
}

/** A WebSocket session records its durable point at least every this many bytes. */
export const CHECKPOINT_BYTES = 16 * 1024 * 1024

export class DurableLink {
  private recording: Promise<void> | undefined
  /** A `follow` that came while a record was under way. */
  private followAgain:
    [lastActivity: number, onError: (error: unknown) => void, step: number] | undefined
  /** Set once the session is suspended or removed: nothing more is recorded. */
  private ended = false

  constructor(
    readonly id: string,
    readonly resumable: boolean,
    readonly writer: ResumableWriter,
    private readonly records: SessionRecords,
    private readonly holder: string,
    /** The bytes last recorded. */
    private recorded: number,
  ) {}

  /**
   * Records the writer's durable point once it moved `step` bytes past the last, without waiting;
   * a call while a record is under way is taken up after it, so the last move is recorded too.
   */
  follow(lastActivity: number, onError: (error: unknown) => void, step = CHECKPOINT_BYTES): void {
    if (this.ended) return
    if (this.recording) {
      this.followAgain = [lastActivity, onError, Math.min(step, this.followAgain?.[2] ?? step)]
      return
    }
    const point = this.writer.durable()
    if (point.offset - this.recorded < Math.max(step, 1)) return
    this.recording = this.records
      .record(this.id, this.holder, {
        bytesWritten: point.offset,
        writerState: point.state,
        nextIndex: null,
        lastActivity,
      })
      .then((held) => {
        if (!held) throw new Error(`Upload session ${this.id} is no longer held by this instance`)
        this.recorded = point.offset
      })
      .catch(onError)
      .finally(() => {
        this.recording = undefined
        const again = this.followAgain
        this.followAgain = undefined
        if (again) this.follow(...again)
      })
  }

  /** Closes the writer and gives the row up, keeping every byte the store can make durable. */
  async suspend(lastActivity: number): Promise<void> {
    this.ended = true
    await this.recording
    const point = await this.writer.suspend(true)
    const recorded = { bytesWritten: point.offset, nextIndex: null, writerState: point.state }
    await this.records.release(this.id, this.holder, { ...recorded, lastActivity })
  }

  /** Records nothing more and waits for a record under way: the session is ending. */
  async close(): Promise<void> {
    this.ended = true
    await this.recording?.catch(() => undefined)
  }

  /** Deletes the row on `tx`, after `close()`; false when another instance holds it now. */
  remove(tx: Executor): Promise<boolean> {
    return this.records.remove(this.id, this.holder, tx)
  }
}
