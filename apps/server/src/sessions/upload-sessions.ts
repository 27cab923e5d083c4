/**
 * The registry of the upload sessions open on this instance (upload-session.ts): it creates them,
 * resumes a dormant one (its connection ended) from its row, renews this instance's holds, ends
 * sessions that idled out or whose instance is gone, and drains or suspends them at shutdown.
 *
 * May touch: the upload_sessions table, the blob store, and timers (the holds' heartbeat, a
 * resume's wait for the connection holding its session); the metrics registry.
 */
import { randomUUID } from 'node:crypto'
import { EventEmitter, once } from 'node:events'

import { ERROR_MESSAGES } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import { recordUploadFailed, trackUploadSession } from '../metrics/recorder.js'
import type { BlobStore } from '../storage/blob-store.js'
import { DurableLink, type DurableSpec } from './durable-link.js'
import {
  encodeQuotaHold,
  holdsOfRow,
  type SessionHoldEnds,
  type Admission,
} from './session-holds.js'
import {
  SessionRecords,
  type SessionRow,
  type SessionKindName,
  type StreamRow,
} from './session-records.js'
import {
  DRAIN_QUIET_MS,
  UploadSession,
  type NewSession,
  type SessionRegistry,
  UPLOAD_IN_PROGRESS_MESSAGE,
} from './upload-session.js'

export interface UploadSessionsDeps {
  blobs: BlobStore
  records: SessionRecords
  holdEnds: SessionHoldEnds
  now?: () => number
  onError?: (error: unknown) => void
}

/** What a kind of session (normal upload, upload into a request) makes of its row at a resume. */
export interface SessionKind<T> {
  restore(row: StreamRow): { spec: NewSession<T> }
}

/** How often this instance renews its holds. */
const HEARTBEAT_MS = 10_000

/** How long a resume waits for the connection holding its session here to drain and end. */
const HOLDER_WAIT_MS = 3000

/** How long, within that wait, the connection has to answer a ping before it is dropped as dead. */
const HOLDER_PROBE_MS = 2000

export class UploadSessions implements SessionRegistry {
  private readonly sessions = new Map<string, UploadSession>()
  private readonly kinds = new Map<SessionKindName, SessionKind<unknown>>()
  /** This instance, as the holder of the sessions it has open. */
  readonly holder = randomUUID()
  readonly holdEnds: SessionHoldEnds
  readonly now: () => number
  readonly reportError: (error: unknown) => void
  private readonly heartbeat: NodeJS.Timeout

  constructor(private readonly deps: UploadSessionsDeps) {
    this.holdEnds = deps.holdEnds
    this.now = deps.now ?? Date.now
    this.reportError = deps.onError ?? ((error) => console.error(error))
    // The one heartbeat of this instance: it renews its holds on rows of both writers.
    this.heartbeat = setInterval(() => {
      this.beat().catch((error: unknown) => this.reportError(error))
    }, HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  registerKind<T>(kind: SessionKindName, handler: SessionKind<T>): void {
    this.kinds.set(kind, handler as SessionKind<unknown>)
  }

  /** Renews this instance's holds on the rows it still has: its open and suspending sessions. */
  beat(): Promise<void> {
    return this.deps.records.beat(this.holder, [...this.sessions.keys(), ...this.suspending.keys()])
  }

  /** Stops renewing holds; at shutdown, before the database closes. */
  stop(): void {
    clearInterval(this.heartbeat)
  }

  /**
   * Opens a session holding what `admit` takes, with a row and a resumable writer when `durable`:
   * the row is written by the transaction that takes the holds.
   */
  async create<T>(
    spec: NewSession<T>,
    admit: Admission,
    durable?: DurableSpec,
  ): Promise<UploadSession<T>> {
    const id = randomUUID()
    const { records } = this.deps
    if (!durable) {
      // The writer first (a new file, or nothing yet on S3): a writer that cannot be had then
      // leaves no hold to give back, and a refused one is discarded.
      const writer = await this.deps.blobs.create(id)
      const holds = await this.holdEnds.take(admit).catch(async (error: unknown) => {
        await writer.abort().catch(() => undefined)
        throw error
      })
      const session = new UploadSession<T>(id, this, writer, spec, holds, this.now())
      this.sessions.set(id, session as UploadSession)
      return session
    }
    const now = this.now()
    const holds = await this.holdEnds.take(admit, async (tx, holds) => {
      await records.insert(tx, {
        id,
        ...durable,
        transport: 'ws',
        quota: encodeQuotaHold(holds.quota),
        declaredSize: spec.declaredSize,
        bytesWritten: 0,
        nextIndex: null,
        writerState: '',
        holder: this.holder,
        heartbeatAt: now,
        lastActivity: now,
        createdAt: now,
      })
    })
    const writer = await this.deps.blobs.createResumable(id).catch(async (error: unknown) => {
      await this.holdEnds.end(holds, false, (tx) => records.remove(id, undefined, tx))
      throw error
    })
    const link = new DurableLink(id, durable.resumable, writer, records, this.holder, 0)
    const session = new UploadSession<T>(id, this, writer, spec, holds, now, link)
    this.sessions.set(id, session as UploadSession)
    return session
  }

  /**
   * Resumes session `id` of `kind` here from its durable point at or below `offset`, if `check`
   * passes; the metrics count it as resumed.
   */
  async resume<T>(
    id: string,
    kind: SessionKindName,
    offset: number,
    check: (row: StreamRow) => void,
  ): Promise<UploadSession<T>> {
    const { records } = this.deps
    const found = await records.find(id)
    // A session whose client did not ask to resume it belongs to its connection alone.
    const handler = found?.resumable && found.kind === kind ? this.kinds.get(kind) : undefined
    if (!found || !handler) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    check(found)
    if (offset > found.bytesWritten) throw new HttpError(400, ERROR_MESSAGES.invalidRequest)
    // The old connection here may still be draining what it read, not yet seeing its close: the
    // resume waits for it, and pings it so that a dead one is dropped rather than kept until its
    // keepalive ends it.
    this.sessions.get(id)?.probe(HOLDER_PROBE_MS)
    const inProgress = () => new HttpError(409, UPLOAD_IN_PROGRESS_MESSAGE)
    if (!(await this.leaves(id, HOLDER_WAIT_MS)) || this.sessions.has(id)) throw inProgress()
    // Its connection ended here a moment ago: the suspension records the point to resume from.
    await this.settled(id)
    if (this.sessions.has(id)) throw inProgress()
    const row = await records.claim(id, this.holder)
    if (!row) {
      if (await records.find(id)) throw inProgress()
      throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
    const { nextIndex, writerState, lastActivity } = row
    const point = { nextIndex, writerState, lastActivity }
    try {
      // It moved between the look and the claim: refused as if it had been seen so.
      if (offset > row.bytesWritten) throw new HttpError(400, ERROR_MESSAGES.invalidRequest)
      // Recorded before the bytes past it are dropped, so the row never claims more than is kept.
      await records.record(id, this.holder, { ...point, bytesWritten: offset })
      const writer = await this.deps.blobs.reopen(id, writerState, offset)
      const from = writer.bytesWritten
      const link = new DurableLink(id, row.resumable, writer, records, this.holder, from)
      const spec = handler.restore(row).spec as NewSession<T>
      const holds = holdsOfRow(row)
      // Idle time runs from the last bytes, not from the resume: resuming alone keeps nothing.
      const session = new UploadSession<T>(id, this, writer, spec, holds, lastActivity, link, from)
      this.sessions.set(id, session as UploadSession)
      if (from !== offset) await records.record(id, this.holder, { ...point, bytesWritten: from })
      trackUploadSession(session, 'ws', kind === 'request', 'resumed')
      return session
    } catch (error) {
      const kept = await records.find(id)
      await records.release(id, this.holder, { ...point, bytesWritten: kept?.bytesWritten ?? 0 })
      throw error
    }
  }

  /** Ends the dormant sessions of either writer that idled out; answers how many ended. */
  async expireDormant(idleMs: number, requestIdleMs: number): Promise<number> {
    const now = this.now()
    const rows = await this.deps.records.claimIdle(now - idleMs, now - requestIdleMs, this.holder)
    return this.endRows(rows)
  }

  /** Ends the unresumable sessions whose instance is gone (`all`: every one not held here). */
  async endUnresumable(all = false): Promise<number> {
    return this.endRows(await this.deps.records.claimUnresumable(this.holder, all))
  }

  /** Ends the claimed sessions not open here; answers how many ended. */
  private async endRows(rows: readonly SessionRow[]): Promise<number> {
    const ids = rows.filter((row) => !this.sessions.has(row.id)).map((row) => row.id)
    const ended = await this.holdEnds.endFailed(ids)
    // No live session records these ends (metrics/recorder.ts): the one instance whose delete
    // took the row counts it, with the bytes the row kept.
    for (const session of ended) recordUploadFailed(session.transport, session.bytesWritten)
    return ended.length
  }

  /** The row of session `id` when it is not open on this instance. */
  async findDormant(id: string): Promise<StreamRow | undefined> {
    if (this.sessions.has(id)) return undefined
    return this.deps.records.find(id)
  }

  /** Ends a session from its row; false when it had ended already. */
  async endDormant(row: SessionRow): Promise<boolean> {
    return (await this.endRows([row])) > 0
  }

  /** Ends the dormant sessions uploading into request `requestId`, which is going away. */
  async endDormantOfRequest(requestId: string): Promise<void> {
    for (const row of await this.deps.records.ofRequest(requestId)) await this.endDormant(row)
  }

  /** Ids of the sessions whose bytes must be kept: open here, or with a row of either writer. */
  async resumableIds(): Promise<Set<string>> {
    const ids = this.ids()
    for (const id of await this.deps.records.ids()) ids.add(id)
    return ids
  }

  /** The open session with this id, when its context passes `belongs` (e.g. the same request). */
  get<T>(id: string, belongs: (context: unknown) => context is T): UploadSession<T> | undefined {
    const session = this.sessions.get(id)
    if (!session || session.state !== 'open' || !belongs(session.context)) return undefined
    return session as UploadSession<T>
  }

  get size(): number {
    return this.sessions.size
  }

  forget(session: UploadSession<unknown>): void {
    if (this.sessions.get(session.id) !== session) return
    this.sessions.delete(session.id)
    this.left.emit(session.id)
  }

  /** Emits the id of a session no longer open here, for the resumes waiting for it to leave. */
  private readonly left = new EventEmitter().setMaxListeners(0)

  /** Resolves true once no session `id` is open here, or false after `ms` while one still is. */
  private async leaves(id: string, ms: number): Promise<boolean> {
    if (!this.sessions.has(id)) return true
    const signal = AbortSignal.timeout(ms)
    return once(this.left, id, { signal }).then(
      () => true,
      () => false,
    )
  }

  /** Resolves once a suspension of session `id` under way here is recorded (at once if none). */
  async settled(id: string): Promise<void> {
    await this.suspending.get(id)
  }

  /** Aborts sessions idle for longer than their idle time; returns how many ended. */
  async expireIdle(): Promise<number> {
    const now = this.now()
    const stale = [...this.sessions.values()].filter(
      (s) => s.idleMs !== null && s.state === 'open' && now - s.lastActivity > s.idleMs,
    )
    await Promise.all(stale.map((s) => s.abort()))
    return stale.length
  }

  /** Waits at most `timeoutMs` while a session still receives bytes; answers how many are open. */
  async drain(timeoutMs: number): Promise<number> {
    // Wall-clock time: the service clock may be a test's manual clock, which never moves here.
    const deadline = performance.now() + timeoutMs
    const running = () => [...this.sessions.values()].some((s) => s.isRunning(DRAIN_QUIET_MS))
    while (running() && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return this.sessions.size
  }

  /** Ids of the open sessions (their unfinished blobs must not be swept). */
  ids(): Set<string> {
    return new Set(this.sessions.keys())
  }

  /** At shutdown: suspends every session (upload-session.ts) and waits for the suspensions. */
  async suspendAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.suspend()))
    await Promise.all(this.suspending.values())
  }

  /** Suspensions under way, which shutdown and a resume of their session wait for. */
  private readonly suspending = new Map<string, Promise<void>>()

  track(id: string, suspension: Promise<void>): Promise<void> {
    this.suspending.set(id, suspension)
    const settled = () => this.suspending.delete(id)
    suspension.then(settled, settled)
    return suspension
  }
}
