/**
 * What an upload session holds until it ends, for every kind of session: the declared size held
 * against its client's quota and, in a file request, one of the request's slots. The holds end
 * here and nowhere else, inside the transaction that ends the session (its record written, or its
 * row deleted), so that they end exactly once whichever instance or path ends it; and the JSON a
 * streamed session's row keeps its quota hold in.
 *
 * May touch: nothing directly; the quota (limits/quota.ts) and the request's slot counters
 * (requests/request-slots.ts) on the transaction it is given.
 */
import type { Db, Executor } from '../db/client.js'
import type { QuotaHold, UploadQuota } from '../limits/quota.js'
import { endSlot } from '../requests/request-slots.js'
import { holdsNoteSlot } from './stored-contexts.js'

/** A slot of a file request held by a session; `note`: one kept for a sender's note. */
export interface SlotHold {
  requestId: string
  note: boolean
}

export interface SessionHolds {
  /** Null while the quota is off. */
  quota: QuotaHold | null
  /** Null for a normal upload. */
  slot: SlotHold | null
}

/** What a session row says of its holds: its request, its context and its quota hold's JSON. */
export interface HoldingRow {
  requestId: string | null
  context: string
  quota: string
}

/** The holds a session row names (streamed and stored rows alike). */
export function holdsOfRow(row: HoldingRow): SessionHolds {
  const slot =
    row.requestId === null ? null : { requestId: row.requestId, note: holdsNoteSlot(row.context) }
  return { quota: decodeQuotaHold(row.quota), slot }
}

/** A quota hold as a streamed session's row keeps it (`quota` column); '' while the quota is off. */
export function encodeQuotaHold(hold: QuotaHold | null): string {
  if (hold === null) return ''
  const { clientHash, windowStart, bytes } = hold
  return JSON.stringify({ clientHash, windowStart, bytes })
}

/**
 * The quota hold of a streamed session's row. Rows written before holds took this shape name
 * the window `start`; anything else that is not a hold is refused rather than guessed at.
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
   * Ends `holds` on `tx`, the transaction that ends their session. `kept` (the upload's record is
   * written in `tx`): the quota's bytes are recorded and the slot moves from reserved to used;
   * otherwise both are given back.
   */
  async endOn(tx: Executor, holds: SessionHolds, kept: boolean): Promise<void> {
    if (holds.quota !== null) await this.quota.endHold(tx, holds.quota, kept)
    if (holds.slot !== null) await endSlot(tx, this.db.tables, holds.slot, kept)
  }

  /**
   * One transaction: `step` ends the session (writes its record, deletes its row) and answers
   * whether this call ended it; only then do its holds end, in the same transaction. A step that
   * throws rolls everything back and leaves the holds as they were.
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
