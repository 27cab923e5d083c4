/**
 * The slots of a file request (spec: Upload slot inside a request): taking one for an upload in
 * one conditional UPDATE, giving one back or marking it used on any executor (so the transaction
 * that ends a session ends its slot; sessions/session-holds.ts), and freeing at start the
 * reservations no session holds.
 *
 * A slot is one of `maxUploads`; it is free, reserved (a session runs) or used (an upload
 * finished; deleting the file keeps it used). Reserved and used slots are counters on the
 * request row, so reserving a slot and checking the size is one conditional UPDATE and no number
 * of concurrent inits can take more slots than there are. A request created with `senderNotes`
 * (ours) keeps `noteSlots` of them for senders' notes that go with files: such a note takes only
 * those, any other upload only the rest, so files alone never take a note's place.
 * May touch: table file_requests; upload_sessions (read).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, eq, gt, gte, lte, or, sql } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { decrement, decrementToZero, increment } from '../db/expressions.js'
import { HttpError } from '../http-error.js'
import type { Tombstones } from '../records/tombstones.js'
import { NOTE_SLOT_CONTEXT } from '../sessions/stored-contexts.js'
import { HOLD_LAPSE_MS } from '../sessions/session-records.js'
import { findRequest, isRequestOpen } from './request-records.js'

/** What taking a slot reads: the database, the takedowns for a refusal's answer, the clock. */
export interface SlotDeps {
  db: Db
  tombstones: Tombstones
  now: () => number
}

/**
 * Ends one reserved slot of request `requestId`, in the transaction that ends its session: `kept`
 * (its upload finished) moves it to used, otherwise it is free again; reserved counts never go
 * below zero. `note`: a slot kept for a sender's note.
 */
export async function endSlot(
  tx: Executor,
  tables: Db['tables'],
  slot: { requestId: string; note: boolean },
  kept: boolean,
): Promise<void> {
  const { fileRequests: r } = tables
  const reservedNotes = slot.note ? { reservedNotes: decrementToZero(r.reservedNotes) } : {}
  if (!kept) {
    await tx
      .update(r)
      .set({ reservedUploads: decrement(r.reservedUploads), ...reservedNotes })
      .where(and(eq(r.id, slot.requestId), gt(r.reservedUploads, 0)))
    return
  }
  await tx
    .update(r)
    .set({
      reservedUploads: decrementToZero(r.reservedUploads),
      usedUploads: increment(r.usedUploads),
      ...reservedNotes,
      ...(slot.note ? { usedNotes: increment(r.usedNotes) } : {}),
    })
    .where(eq(r.id, slot.requestId))
}

/**
 * Takes a free slot for an upload of `size` bytes in one conditional UPDATE (spec: Upload slot,
 * "slot and size check pass in one step"): a note's slot for a sender's note where the request
 * keeps some, otherwise one of the rest. Answers whether it took a note's slot. When nothing
 * changed, the row says why.
 */
export async function reserveSlot(
  deps: SlotDeps,
  requestId: string,
  size: number,
  note: boolean,
): Promise<boolean> {
  const { fileRequests: r } = deps.db.tables
  const now = deps.now()
  const notesTaken = sql`(${r.usedNotes} + ${r.reservedNotes})`
  const othersFree = sql`${r.usedUploads} + ${r.reservedUploads} - ${notesTaken} < ${r.maxUploads} - ${r.noteSlots}`
  const free = note
    ? sql`((${r.noteSlots} > 0 and ${notesTaken} < ${r.noteSlots}) or (${r.noteSlots} = 0 and ${othersFree}))`
    : othersFree
  const [reserved] = await deps.db.query
    .update(r)
    .set({
      reservedUploads: increment(r.reservedUploads),
      slotReservedAt: now,
      ...(note
        ? {
            reservedNotes: sql`${r.reservedNotes} + case when ${r.noteSlots} > 0 then 1 else 0 end`,
          }
        : {}),
    })
    .where(
      and(
        eq(r.id, requestId),
        eq(r.closed, false),
        gt(r.closesAt, now),
        gte(r.maxSize, size),
        free,
      ),
    )
    .returning({ noteSlots: r.noteSlots })
  if (reserved !== undefined) return note && reserved.noteSlots > 0
  const row = await findRequest(deps.db, deps.tombstones, requestId)
  if (!isRequestOpen(row, deps.now())) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
  if (row.maxSize < size) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
  throw new HttpError(409, ERROR_MESSAGES.requestFull)
}

/**
 * At start: frees the reservations that no session holds any more. Sessions that were not
 * durable died with the last run, and those whose client did not ask to resume were ended
 * before this; a session with a row in the database (upload_sessions) may still resume, or runs
 * on another instance, and keeps its slot.
 * On PostgreSQL another instance may have reserved a slot and not yet written its session's
 * row, so a request whose last reservation is younger than HOLD_LAPSE_MS keeps its count (one
 * conditional update: a reservation made meanwhile moves `slotReservedAt` and is left alone).
 * SQLite's single instance has nothing in flight at start.
 */
export async function resetReservations(db: Db, now: () => number): Promise<number> {
  const { fileRequests, uploadSessions: s } = db.tables
  const held = sql<number>`(select count(*) from ${s} where ${s.requestId} = ${fileRequests.id})`
  const unheld = gt(fileRequests.reservedUploads, held)
  const settled = lte(fileRequests.slotReservedAt, now() - HOLD_LAPSE_MS)
  const note = `%${NOTE_SLOT_CONTEXT}%`
  const heldNotes = sql<number>`(select count(*) from ${s} where ${s.requestId} = ${fileRequests.id} and ${s.context} like ${note})`
  const surplus = or(unheld, gt(fileRequests.reservedNotes, heldNotes))
  const freed = await db.query
    .update(fileRequests)
    .set({ reservedUploads: held, reservedNotes: heldNotes })
    .where(db.dialect === 'sqlite' ? surplus : and(surplus, settled))
    .returning({ id: fileRequests.id })
  return freed.length
}
