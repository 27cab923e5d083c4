/**
 * A session at its finalize, whichever writer holds it (upload-session.ts, chunk-sessions.ts):
 * the services finalize every upload through it, one way.
 * May touch: nothing (types).
 */
import type { Executor } from '../db/client.js'

export interface FinishingSession<C> {
  readonly id: string
  /** What the session's init declared. */
  readonly context: C
  /**
   * Joins the session's bytes into the blob and writes `record` in the transaction that ends it;
   * a failure ends the session, and one of that transaction calls `discard` (the blob's removal).
   */
  finish<T>(record: (tx: Executor) => Promise<T>, discard: () => Promise<unknown>): Promise<T>
  /** Ends the session, its bytes discarded and its holds given back. */
  abort(): Promise<void>
}
