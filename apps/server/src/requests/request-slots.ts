/**
 * Giving back a reserved slot of a file request (spec: Upload slot inside a request), on any
 * executor, so that the transaction that ends a session held in the database returns its slot.
 */
import { and, eq, gt } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { decrement, decrementToZero } from '../db/expressions.js'

/**
 * Frees one reserved slot of request `requestId`, never below zero; `note`: a slot kept for a
 * sender's note.
 */
export async function releaseSlot(
  tx: Executor,
  tables: Db['tables'],
  requestId: string,
  note: boolean,
): Promise<void> {
  const { fileRequests } = tables
  await tx
    .update(fileRequests)
    .set({
      reservedUploads: decrement(fileRequests.reservedUploads),
      ...(note ? { reservedNotes: decrementToZero(fileRequests.reservedNotes) } : {}),
    })
    .where(and(eq(fileRequests.id, requestId), gt(fileRequests.reservedUploads, 0)))
}
