/**
 * One upload session of the stream writer held by this instance (a single request or a
 * WebSocket): it owns the blob writer and its write chain, counts bytes against the declared
 * length, and ends in exactly one of commit, abort or (a resumable socket's) suspension.
 *
 * May touch: the blob store (its own writer), and the upload_sessions table through its link.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import type { Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { BlobWriter } from '../storage/blob-store.js'
import type { DurableLink } from './durable-link.js'
import type { FinishingSession } from './finishing-session.js'
import type { SessionHoldEnds, SessionHolds } from './session-holds.js'

/** The answer to a resume of a session that a live connection holds (docs/api.md). */
export const UPLOAD_IN_PROGRESS_MESSAGE = 'Upload already in progress'

/** A session that received nothing for this long is not waited for at shutdown. */
export const DRAIN_QUIET_MS = 5000

export type SessionOutcome = 'committed' | 'aborted'
export type SessionState = 'open' | 'committing' | 'suspended' | SessionOutcome

export interface NewSession<T> {
  declaredSize: number
  context: T
  /** Over HTTP the session is dropped after this much idle time; sockets manage their own. */
  idleMs: number | null
}

/** What a session needs of the registry holding it (upload-sessions.ts). */
export interface SessionRegistry {
  now(): number
  reportError(error: unknown): void
  /** The session is no longer open here. */
  forget(session: UploadSession<unknown>): void
  /** A suspension under way, which shutdown and a resume of the session wait for. */
  track(id: string, suspension: Promise<void>): Promise<void>
  readonly holdEnds: SessionHoldEnds
}

export class UploadSession<T = unknown> implements FinishingSession<T> {
  readonly declaredSize: number
  readonly context: T
  readonly idleMs: number | null
  /** Service-clock time of the last bytes, for the idle timeout. */
  lastActivity: number
  /** Wall-clock time of the last bytes, for telling running uploads from abandoned ones. */
  private lastActivityWall = performance.now()
  private stateValue: SessionState = 'open'
  /** Bytes accepted so far: written or queued for writing. */
  private accepted: number
  private chain: Promise<void> = Promise.resolve()
  private readonly endListeners: Array<(outcome: SessionOutcome) => void | Promise<void>> = []

  constructor(
    /** Also the key of the blob and the id of its record. */
    readonly id: string,
    private readonly registry: SessionRegistry,
    private readonly writer: BlobWriter,
    spec: NewSession<T>,
    private readonly holds: SessionHolds,
    lastActivity: number,
    private readonly link?: DurableLink,
    /** The byte this session's connection started from (not 0 when resumed). */
    readonly startOffset = 0,
  ) {
    this.declaredSize = spec.declaredSize
    this.context = spec.context
    this.idleMs = spec.idleMs
    this.lastActivity = lastActivity
    this.accepted = startOffset
    // The store makes bytes durable after the write that brought them (an S3 part uploads in
    // the background): each move is recorded as it happens, not when more bytes arrive.
    link?.writer.onDurable(() => this.follow(1))
  }

  get state(): SessionState {
    return this.stateValue
  }

  get bytesAccepted(): number {
    return this.accepted
  }

  /** Whether bytes arrived within `windowMs`: an upload under way, not an abandoned one. */
  isRunning(windowMs: number): boolean {
    return this.stateValue !== 'aborted' && performance.now() - this.lastActivityWall < windowMs
  }

  /** How the connection holding this session checks that its peer still answers. */
  private prober: ((withinMs: number) => void) | undefined

  onProbe(probe: (withinMs: number) => void): void {
    this.prober = probe
  }

  /** Asks the connection to prove its peer alive within `withinMs` or end: a resume waits. */
  probe(withinMs: number): void {
    if (this.stateValue === 'open') this.prober?.(withinMs)
  }

  /** Runs once when the session ends, whichever way, after its holds ended. */
  onEnd(listener: (outcome: SessionOutcome) => void | Promise<void>): void {
    this.endListeners.push(listener)
  }

  private assertOpen(): void {
    if (this.stateValue !== 'open') throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  }

  /** Appends bytes in arrival order; resolves once the store took them (the backpressure). */
  append(bytes: Uint8Array): Promise<void> {
    this.assertOpen()
    if (this.accepted + bytes.length > this.declaredSize) {
      throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
    }
    this.accepted += bytes.length
    this.lastActivity = this.registry.now()
    this.lastActivityWall = performance.now()
    // A failed write fails the whole session; later writes on the chain fail with it.
    this.chain = this.chain
      .then(() => this.writer.write(bytes))
      .catch((error: unknown) => {
        void this.abort()
        throw error
      })
    if (this.link) {
      void this.chain.then(
        () => this.follow(),
        () => undefined,
      )
    }
    return this.chain
  }

  /** Records the durable point once it moved `step` bytes (durable-link.ts). */
  private follow(step?: number): void {
    this.link?.follow(this.lastActivity, (error) => this.registry.reportError(error), step)
  }

  /**
   * Commits the blob once every declared byte is written (else 400, spec: File upload states),
   * then writes `record` in the transaction that ends the session; when that fails, `discard`
   * removes the committed blob.
   */
  async finish<R>(
    record: (tx: Executor) => Promise<R>,
    discard: () => Promise<unknown>,
  ): Promise<R> {
    this.assertOpen()
    this.stateValue = 'committing'
    try {
      await this.chain
      if (this.writer.bytesWritten !== this.declaredSize) {
        throw new HttpError(400, ERROR_MESSAGES.sizeMismatch)
      }
      await this.writer.commit()
    } catch (error) {
      await this.discard()
      throw error
    }
    let result: R | undefined
    try {
      await this.end('committed', async (tx) => {
        result = await record(tx)
      })
    } catch (error) {
      await this.end('aborted')
      await discard().catch((failure: unknown) => this.registry.reportError(failure))
      throw error
    }
    return result as R
  }

  /**
   * Ends the session and discards its bytes; safe at any time and never rejects. A commit under
   * way is left to finish (its caller owns the outcome), so no blob is torn mid-rename.
   */
  async abort(): Promise<void> {
    if (this.stateValue === 'open') await this.discard()
  }

  /**
   * The connection ended without `done` or an abort: a resumable session keeps its bytes, row and
   * holds for a resume on any instance; any other is aborted, its slot and quota free at once
   * (spec: Upload slot inside a request, socket closed before done).
   */
  suspend(): Promise<void> {
    if (this.stateValue !== 'open') return Promise.resolve()
    if (!this.link?.resumable) return this.abort()
    this.stateValue = 'suspended'
    this.registry.forget(this)
    return this.registry.track(this.id, this.keep(this.link))
  }

  private async keep(link: DurableLink): Promise<void> {
    try {
      await this.chain
      await link.suspend(this.lastActivity)
    } catch (error) {
      this.registry.reportError(error)
      await this.discard()
    }
  }

  private async discard(): Promise<void> {
    if (this.stateValue === 'aborted' || this.stateValue === 'committed') return
    this.stateValue = 'aborted'
    // The holds first: a request slot or quota freed by the end must be free the moment the
    // session is gone, not only once its partial blob has been removed. A store that cannot
    // discard now (an outage) leaves the partial bytes to the cleanup job's sweep of unfinished
    // writes: the session has ended either way, and this never throws.
    if (await this.end('aborted')) {
      await this.writer.abort().catch((error: unknown) => this.registry.reportError(error))
    } else await this.link?.writer.suspend(false).catch(() => undefined)
  }

  /**
   * Ends the session in one transaction: `record` (a commit's), the row deleted, the holds ended.
   * False when another instance took it over (a commit then fails, its record undone). An abort
   * whose transaction fails is reported: the row and holds stay for the cleanup job.
   */
  private async end(
    outcome: SessionOutcome,
    record?: (tx: Executor) => Promise<void>,
  ): Promise<boolean> {
    this.stateValue = outcome
    this.registry.forget(this)
    const link = this.link
    // Outside the transaction, which awaits nothing but its own statements.
    await link?.close()
    let ended = true
    try {
      ended = await this.registry.holdEnds.end(this.holds, outcome === 'committed', async (tx) => {
        await record?.(tx)
        const removed = link ? await link.remove(tx) : true
        if (!removed && record) throw new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
        return removed
      })
    } catch (error) {
      if (record) throw error
      this.registry.reportError(error)
    }
    if (!ended) return false
    for (const listener of this.endListeners) {
      try {
        await listener(outcome)
      } catch (error) {
        this.registry.reportError(error)
      }
    }
    return true
  }
}
