/**
 * The slots of a file request (spec: Upload slot inside a request): taking one, ending one in the
 * transaction that ends its session (sessions/session-holds.ts), and freeing at start the
 * reservations no session holds. A slot of `maxUploads` is free, reserved (a session runs) or used
 * (an upload finished, even if deleted since); the counts are on the request row, so no number of
 * concurrent inits can take more slots than there are. With `senderNotes` (ours) a request keeps
 * `noteSlots` for senders' notes, which take only those, so files alone never take their place.
 * May touch: table file_requests; upload_sessions (read).
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'
import { and, eq, gt, gte, lte, or, sql } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { decrement, decrementToZero, increment } from '../db/expressions.js'
import { HttpError } from '../http-error.js'
import { NOTE_SLOT_CONTEXT } from '../sessions/stored-contexts.js'
import { HOLD_LAPSE_MS } from '../sessions/session-records.js'
import { isRequestOpen, requestNotFound } from './request-records.js'

/** Ends a reserved slot on `tx`: `kept` (its upload finished) moves it to used, else it is free. */
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
 * Takes a free slot for `size` bytes on `on` in one conditional UPDATE (spec: Upload slot, "slot
 * and size check pass in one step"), a note's when `note` and the request keeps them. On a refusal
 * the row, read on `on`, says why.
 */
export async function reserveSlot(
  deps: { db: Db; now: () => number },
  on: Executor,
  requestId: string,
  size: number,
  note: boolean,
): Promise<void> {
  const { fileRequests: r } = deps.db.tables
  const now = deps.now()
  const notesTaken = sql`(${r.usedNotes} + ${r.reservedNotes})`
  const othersFree = sql`${r.usedUploads} + ${r.reservedUploads} - ${notesTaken} < ${r.maxUploads} - ${r.noteSlots}`
  const free = note ? sql`${notesTaken} < ${r.noteSlots}` : othersFree
  const [reserved] = await on
    .update(r)
    .set({
      reservedUploads: increment(r.reservedUploads),
      slotReservedAt: now,
      ...(note ? { reservedNotes: increment(r.reservedNotes) } : {}),
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
    .returning({ id: r.id })
  if (reserved !== undefined) return
  const [row] = await on.select().from(r).where(eq(r.id, requestId))
  if (row === undefined) throw requestNotFound()
  if (!isRequestOpen(row, now)) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
  if (row.maxSize < size) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
  throw new HttpError(409, ERROR_MESSAGES.requestFull)
}

/**
 * At start: frees the reservations no session row (upload_sessions) holds, which only a
 * database written before slots were taken with their rows can have; a session with a row may
 * still resume or run elsewhere. On PostgreSQL another instance's admission may hold the request's
 * row in a transaction not yet committed, whose session row this statement's snapshot misses, so a
 * reservation younger than HOLD_LAPSE_MS is left alone (an admission moves `slotReservedAt` in the
 * same update); SQLite's single instance has none in flight.
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
