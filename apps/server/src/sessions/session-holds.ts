/**
 * What an upload session holds until it ends: the declared size held against its client's quota
 * and, in a file request, one of its slots. The holds end here and nowhere else, inside the
 * transaction that ends the session, so that they end exactly once whichever instance or path
 * ends it; and the JSON a session row keeps its quota hold in.
 *
 * May touch: nothing directly; the quota (limits/quota.ts) and the request's slot counters
 * (requests/request-slots.ts) on the transaction it is given.
 */
import type { Db, Executor } from '../db/client.js'
import type { QuotaHold, UploadQuota } from '../limits/quota.js'
import { endSlot } from '../requests/request-slots.js'
import { holdsNoteSlot } from './stored-contexts.js'

export interface SessionHolds {
  /** Null while the quota is off. */
  quota: QuotaHold | null
  /** A slot of a file request (`note`: one kept for a sender's note); null for a normal upload. */
  slot: { requestId: string; note: boolean } | null
}

/** The holds a session row names (streamed and stored rows alike). */
export function holdsOfRow(row: {
  requestId: string | null
  context: string
  quota: string
}): SessionHolds {
  const slot =
    row.requestId === null ? null : { requestId: row.requestId, note: holdsNoteSlot(row.context) }
  return { quota: decodeQuotaHold(row.quota), slot }
}

/** A quota hold as a session row keeps it (`quota` column); '' while the quota is off. */
export function encodeQuotaHold(hold: QuotaHold | null): string {
  if (hold === null) return ''
  const { clientHash, windowStart, bytes } = hold
  return JSON.stringify({ clientHash, windowStart, bytes })
}

/**
 * The quota hold of a session row. Rows written before holds took this shape name the window
 * `start`; anything else that is not a hold is refused rather than guessed at.
 */
export function decodeQuotaHold(text: string): QuotaHold | null {
  if (text === '') return null
  const value = JSON.parse(text) as Record<string, unknown>
  const windowStart = value.windowStart ?? value.start
  const { clientHash, bytes } = value
  if (
    typeof clientHash !== 'string' ||
    !Number.isSafeInteger(windowStart) ||
    !Number.isSafeInteger(bytes)
  ) {
    throw new Error('A session row holds a malformed quota hold')
  }
  return { clientHash, windowStart: windowStart as number, bytes: bytes as number }
}

/** First wait before a refused release is tried again; each failure doubles it up to the most. */
const RETRY_FIRST_MS = 500
const RETRY_MOST_MS = 30_000

/** Where a session's holds end: the database and the quota. */
export class SessionHoldEnds {
  /** Releases the database refused (it was away), tried again until it takes them. */
  private readonly unreleased = new Set<SessionHolds>()
  private retryTimer: NodeJS.Timeout | undefined
  private retryMs = RETRY_FIRST_MS

  constructor(
    private readonly db: Db,
    private readonly quota: Pick<UploadQuota, 'endHold'>,
  ) {}

  /**
   * Ends `holds` on `tx`, the transaction that ends their session: `kept` (the upload's record is
   * written in `tx`) records the quota's bytes and uses the slot; otherwise both are given back.
   */
  async endOn(tx: Executor, holds: SessionHolds, kept: boolean): Promise<void> {
    if (holds.quota !== null) await this.quota.endHold(tx, holds.quota, kept)
    if (holds.slot !== null) await endSlot(tx, this.db.tables, holds.slot, kept)
  }

  /**
   * One transaction: `step` ends the session (writes its record, deletes its row) and answers
   * whether this call ended it; only then do its holds end. A step that throws rolls it all back.
   */
  async end(
    holds: SessionHolds,
    kept: boolean,
    step: (tx: Executor) => Promise<boolean>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await step(tx))) return false
      await this.endOn(tx, holds, kept)
      return true
    })
  }

  /**
   * Gives back the holds of a session that never got going (no row, no record), in one
   * transaction. Nothing else would give them back, so a release the database refuses (a restart,
   * a lost connection) is kept and tried again until it succeeds; the error still goes to the
   * caller.
   */
  async release(holds: SessionHolds): Promise<void> {
    try {
      await this.end(holds, false, () => Promise.resolve(true))
    } catch (error) {
      this.unreleased.add(holds)
      this.scheduleRetry()
      throw error
    }
  }

  /** Tries the refused releases again now; answers how many are still refused. */
  async retryReleases(): Promise<number> {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    for (const holds of [...this.unreleased]) {
      try {
        await this.end(holds, false, () => Promise.resolve(true))
        this.unreleased.delete(holds)
      } catch {
        break
      }
    }
    if (this.unreleased.size === 0) this.retryMs = RETRY_FIRST_MS
    else {
      this.retryMs = Math.min(RETRY_MOST_MS, this.retryMs * 2)
      this.scheduleRetry()
    }
    return this.unreleased.size
  }

  /** Stops the retries (shutdown, after a last try). */
  stop(): void {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return
    this.retryTimer = setTimeout(() => void this.retryReleases(), this.retryMs)
    // Not what keeps the process alive: a stopping instance tries once more itself.
    this.retryTimer.unref()
  }
}
