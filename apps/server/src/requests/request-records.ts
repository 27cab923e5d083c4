/**
 * What the requests and inbox services both read of a file request: its row by id, 404 for an
 * unknown one (spec: File request record), and whether it still takes uploads.
 * May touch: table file_requests (read).
 */
import { ERROR_MESSAGES, isUuid } from '@fileshare/protocol'
import { eq } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import type { fileRequests } from '../db/schema-pg.js'
import { HttpError } from '../http-error.js'
import { takedownError, type Tombstones } from '../records/tombstones.js'

export type RequestRow = typeof fileRequests.$inferSelect

export function requestNotFound(): HttpError {
  return new HttpError(404, ERROR_MESSAGES.requestNotFound)
}

/** The request `id`; 410 when taken down (tombstones.ts), 404 for a malformed or unknown id. */
export async function findRequest(db: Db, tombstones: Tombstones, id: string): Promise<RequestRow> {
  if (!isUuid(id)) throw requestNotFound()
  const { fileRequests } = db.tables
  const [row] = await db.query.select().from(fileRequests).where(eq(fileRequests.id, id))
  if (row) return row
  throw (await requestTakedown(tombstones, id)) ?? requestNotFound()
}

/** The 410 of request `id` when the operator took it down (tombstones.ts). */
export async function requestTakedown(
  tombstones: Tombstones,
  id: string,
): Promise<HttpError | undefined> {
  const removed = await tombstones.find('request', id)
  return removed && takedownError(removed)
}

/** Whether a request takes new uploads at `now`: not closed by its owner and not expired. */
export function isRequestOpen(row: Pick<RequestRow, 'closed' | 'closesAt'>, now: number): boolean {
  return !row.closed && row.closesAt > now
}

export function iso(ms: number): string {
  return new Date(ms).toISOString()
}
