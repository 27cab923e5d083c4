/**
 * What is left of uploads and notes the cleanup job removed, expired or used up, so the live
 * tables keep only what can still be read. An id found here answers 410, as the spec's states say
 * (What the service does 4), until TOMBSTONE_RETENTION_MS past the item's expiry; its owner may
 * delete it, or the record it stands for, unless the operator took the item down (takedown.ts):
 * a takedown's tombstone stays, so its owner gets the same 410 as every other route answers.
 * May touch: table tombstones; a stored record through the deleteRow its owner's deletion passes.
 */
import { and, eq, isNull, lte, sql } from 'drizzle-orm'

import { ERROR_MESSAGES, TAKEDOWN_REASON } from '@fileshare/protocol'

import { tokenMatches } from '../access/tokens.js'
import { deleteRows, type Db, type Executor } from '../db/client.js'
import type { notes, uploads } from '../db/schema-pg.js'
import { HttpError } from '../http-error.js'

/** How long past an item's expiry its id answers 410 rather than 404. */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 3_600_000

/** A request leaves one only when the operator takes it down (ops/takedown.ts). */
export type TombstoneKind = 'upload' | 'note' | 'request'

/** Its columns are described with the table (db/tables.ts). */
export interface Tombstone {
  ownerTokenHash: Buffer
  expiresAt: number
  removedAt?: number | null
  takedownReason?: string | null
}

export interface RemovedItem extends Tombstone {
  id: string
}

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

/** A takedown's 410: an expired item's status, so the spec holds, told apart by `reason`. */
export function takedownError(tombstone: Tombstone): HttpError | undefined {
  if (tombstone.removedAt == null) return undefined
  const fields: Record<string, string> = { reason: TAKEDOWN_REASON }
  if (tombstone.takedownReason) fields.takedown = tombstone.takedownReason
  return new HttpError(410, ERROR_MESSAGES.removedByOperator, { fields })
}

/** What a tombstone keeps of a removed upload or note: select these as it is deleted. */
export function tombstoneColumns(table: typeof uploads | typeof notes) {
  return { id: table.id, ownerTokenHash: table.ownerTokenHash, expiresAt: table.expiresAt }
}

export class Tombstones {
  /** Prepared once: the 404 and 410 answers of every route look here. */
  private readonly lookup

  constructor(private readonly db: Db) {
    const { tombstones } = db.tables
    this.lookup = db.query
      .select()
      .from(tombstones)
      .where(
        and(eq(tombstones.id, sql.placeholder('id')), eq(tombstones.kind, sql.placeholder('kind'))),
      )
      .prepare('tombstone_lookup')
  }

  /** Records removed items; `tx` is the transaction that deletes them. */
  async bury(tx: Executor, kind: TombstoneKind, items: readonly RemovedItem[]): Promise<void> {
    const { tombstones } = this.db.tables
    for (const item of items) {
      const { id, ownerTokenHash, expiresAt, removedAt = null, takedownReason = null } = item
      const set = { kind, ownerTokenHash, expiresAt, removedAt, takedownReason }
      await tx
        .insert(tombstones)
        .values({ id, ...set })
        .onConflictDoUpdate({ target: tombstones.id, set })
    }
  }

  async find(kind: TombstoneKind, id: string): Promise<Tombstone | undefined> {
    const [row] = await this.lookup.execute({ id, kind })
    return row
  }

  /**
   * The owner's deletion (spec: DELETE /api/upload/:id, DELETE /api/note/:id) of the item's record,
   * or else its tombstone, once `ownerToken` matches; whether anything was deleted. 404 when
   * neither exists, a takedown's 410, then 401.
   */
  async deleteAsOwner<R extends { ownerTokenHash: Buffer }>(
    item: OwnedItem<R>,
    ownerToken: string | undefined,
  ): Promise<boolean> {
    const { kind, id, row, messages } = item
    const removed = row ? undefined : await this.find(kind, id)
    const owner = row ?? removed
    if (!owner) throw new HttpError(404, messages.notFound)
    const takedown = removed && takedownError(removed)
    if (takedown) throw takedown
    if (!tokenMatches(ownerToken, owner.ownerTokenHash)) {
      throw new HttpError(401, messages.wrongOwner)
    }
    return row ? item.deleteRow(row) : this.remove(kind, id)
  }

  /**
   * Deletes an item's tombstone for its owner; whether there was one. A takedown's stays, by the
   * same conditional delete, so one that lands meanwhile stays too: its 410 is thrown.
   */
  async remove(kind: TombstoneKind, id: string): Promise<boolean> {
    const { tombstones } = this.db.tables
    const own = and(eq(tombstones.id, id), eq(tombstones.kind, kind), isNull(tombstones.removedAt))
    if ((await deleteRows(this.db.query, tombstones, own)) > 0) return true
    const kept = await this.find(kind, id)
    const takedown = kept && takedownError(kept)
    if (takedown) throw takedown
    return false
  }

  async purge(now: number): Promise<number> {
    const { tombstones } = this.db.tables
    const expired = lte(tombstones.expiresAt, now - TOMBSTONE_RETENTION_MS)
    return deleteRows(this.db.query, tombstones, expired)
  }
}
