/**
 * What is left of uploads and notes the cleanup job removed for having expired or used up their
 * downloads or views. The live tables keep only what can still be read, so lookups and the job
 * cost what they did; an id found here answers 410, as the spec's states say (What the service
 * does 4; an exhausted or expired note stays at 410), until TOMBSTONE_RETENTION_MS past the
 * item's expiry, and 404 after that. The owner token's hash lets the owner delete it for good.
 */
import type { Statement } from 'better-sqlite3'

import type { Db } from '../db/client.js'

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

export class Tombstones {
  private readonly insert: Statement<[string, string, Buffer, number]>
  private readonly lookup: Statement<[string, string], Tombstone>
  private readonly drop: Statement<[string, string]>
  private readonly expire: Statement<[number]>

  constructor(db: Db) {
    const client = db.$client
    this.insert = client.prepare(
      `INSERT OR REPLACE INTO tombstones (id, kind, owner_token_hash, expires_at) VALUES (?, ?, ?, ?)`,
    )
    this.lookup = client.prepare(
      `SELECT owner_token_hash AS ownerTokenHash, expires_at AS expiresAt
       FROM tombstones WHERE id = ? AND kind = ?`,
    )
    this.drop = client.prepare(`DELETE FROM tombstones WHERE id = ? AND kind = ?`)
    this.expire = client.prepare(`DELETE FROM tombstones WHERE expires_at <= ?`)
  }

  /** Records removed items; run it in the transaction that deletes them. */
  bury(kind: TombstoneKind, items: readonly RemovedItem[]): void {
    for (const item of items) this.insert.run(item.id, kind, item.ownerTokenHash, item.expiresAt)
  }

  find(kind: TombstoneKind, id: string): Tombstone | undefined {
    return this.lookup.get(id, kind)
  }

  /** Deletes one for good (its owner deleted the item); whether there was one. */
  remove(kind: TombstoneKind, id: string): boolean {
    return this.drop.run(id, kind).changes === 1
  }

  /** Deletes those whose retention ended by `now`; answers how many. */
  purge(now: number): number {
    return this.expire.run(now - TOMBSTONE_RETENTION_MS).changes
  }
}
