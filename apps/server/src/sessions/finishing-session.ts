/**
 * A session at its finalize, whichever writer holds it: the stream writer's session this instance
 * holds (upload-session.ts) or a chunk writer's session any instance may finish
 * (chunk-finalize.ts). The services finalize every upload through it, one way.
 * May touch: nothing (types).
 */
import type { Executor } from '../db/client.js'

export interface FinishingSession<C> {
  readonly id: string
  /** What the session's init declared. */
  readonly context: C
  /**
   * Claims the session, joins its bytes into the blob and writes its record with `record` in the
   * transaction that ends it, its holds kept. A failure ends the session, its holds given back;
   * one of the record's transaction calls `discard`, which removes the joined blob.
   */
  finish<T>(record: (tx: Executor) => Promise<T>, discard: () => Promise<unknown>): Promise<T>
  /** Ends the session, its bytes discarded and its holds given back. */
  abort(): Promise<void>
}
