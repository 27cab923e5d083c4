/**
 * Giving back a reserved slot of a file request (spec: Upload slot inside a request), on any
 * executor, so that the transaction that ends a session held in the database returns its slot.
 */
import { and, eq, gt } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { decrement } from '../db/expressions.js'

/** Frees one reserved slot of request `requestId`; never below zero. */
export async function releaseSlot(
  tx: Executor,
  tables: Db['tables'],
  requestId: string,
): Promise<void> {
  const { fileRequests } = tables
  await tx
    .update(fileRequests)
    .set({ reservedUploads: decrement(fileRequests.reservedUploads) })
    .where(and(eq(fileRequests.id, requestId), gt(fileRequests.reservedUploads, 0)))
}
