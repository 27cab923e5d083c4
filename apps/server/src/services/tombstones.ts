/**
 * What is left of uploads and notes the cleanup job removed for having expired or used up their
 * downloads or views. The live tables keep only what can still be read, so lookups and the job
 * cost what they did; an id found here answers 410, as the spec's states say (What the service
 * does 4; an exhausted or expired note stays at 410), until TOMBSTONE_RETENTION_MS past the
 * item's expiry, and 404 after that. The owner token's hash lets the owner delete it for good.
 */
import { and, eq, lte, sql } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { tombstones, type notes, type uploads } from '../db/schema.js'

/** How long past an item's expiry its id answers 410 rather than 404. */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 3_600_000

export type TombstoneKind = 'upload' | 'note'

export interface Tombstone {
  ownerTokenHash: Buffer
  /** The item's own expiry (ms since the epoch); a used-up item may not have reached it yet. */
  expiresAt: number
}

export interface RemovedItem extends Tombstone {
  id: string
}

/** What a tombstone keeps of a removed upload or note: select these as it is deleted. */
export function tombstoneColumns(table: typeof uploads | typeof notes) {
  return { id: table.id, ownerTokenHash: table.ownerTokenHash, expiresAt: table.expiresAt }
}

const byIdAndKind = and(
  eq(tombstones.id, sql.placeholder('id')),
  eq(tombstones.kind, sql.placeholder('kind')),
)

export class Tombstones {
  /** Prepared once: the 404 and 410 answers of every route look here. */
  private readonly lookup

  constructor(private readonly db: Db) {
    this.lookup = db
      .select({ ownerTokenHash: tombstones.ownerTokenHash, expiresAt: tombstones.expiresAt })
      .from(tombstones)
      .where(byIdAndKind)
      .prepare()
  }

  /** Records removed items; `tx` is the transaction that deletes them. */
  bury(tx: Executor, kind: TombstoneKind, items: readonly RemovedItem[]): void {
    for (const { id, ownerTokenHash, expiresAt } of items) {
      tx.insert(tombstones)
        .values({ id, kind, ownerTokenHash, expiresAt })
        .onConflictDoUpdate({ target: tombstones.id, set: { kind, ownerTokenHash, expiresAt } })
        .run()
    }
  }

  find(kind: TombstoneKind, id: string): Tombstone | undefined {
    return this.lookup.get({ id, kind })
  }

  /** Deletes one for good (its owner deleted the item); whether there was one. */
  remove(kind: TombstoneKind, id: string): boolean {
    const removed = this.db
      .delete(tombstones)
      .where(and(eq(tombstones.id, id), eq(tombstones.kind, kind)))
      .returning({ id: tombstones.id })
      .get()
    return removed !== undefined
  }

  /** Deletes those whose retention ended by `now`; answers how many. */
  purge(now: number): number {
    return this.db
      .delete(tombstones)
      .where(lte(tombstones.expiresAt, now - TOMBSTONE_RETENTION_MS))
      .returning({ id: tombstones.id })
      .all().length
  }
}
