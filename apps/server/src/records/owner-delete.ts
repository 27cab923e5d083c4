/**
 * The owner's deletion of an upload or a note (spec: DELETE /api/upload/:id, DELETE
 * /api/note/:id): the stored record, or what the cleanup job left of it, its tombstone. A
 * takedown's tombstone stays, so its owner gets the same 410 as every other route answers.
 * May touch: nothing directly; tombstones through tombstones.ts.
 */
import { HttpError } from '../http-error.js'
import { takedownError, type Tombstones } from './tombstones.js'
import { tokenMatches } from '../access/tokens.js'

export interface OwnedItem<R extends { ownerTokenHash: Buffer }> {
  kind: 'upload' | 'note'
  id: string
  /** The stored record; undefined when there is none. */
  row: R | undefined
  /** Deletes the stored record; whether it was still there. */
  deleteRow: (row: R) => Promise<boolean>
  /** The kind's words for the 404 of an unknown id and the 401 of a wrong owner token. */
  messages: { notFound: string; wrongOwner: string }
}

/**
 * Deletes the item's record, or else its tombstone, once `ownerToken` matches; whether anything
 * was deleted. 404 when neither exists, a takedown's 410, then 401.
 */
export async function deleteAsOwner<R extends { ownerTokenHash: Buffer }>(
  tombstones: Tombstones,
  item: OwnedItem<R>,
  ownerToken: string | undefined,
): Promise<boolean> {
  const { kind, id, row, messages } = item
  const removed = row ? undefined : await tombstones.find(kind, id)
  const owner = row ?? removed
  if (!owner) throw new HttpError(404, messages.notFound)
  const takedown = removed && takedownError(removed)
  if (takedown) throw takedown
  if (!tokenMatches(ownerToken, owner.ownerTokenHash)) throw new HttpError(401, messages.wrongOwner)
  return row ? item.deleteRow(row) : tombstones.remove(kind, id)
}
