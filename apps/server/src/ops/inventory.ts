/**
 * What the operator may see of the stored items (`fileshare-admin stats` and `ls`): counts, sizes,
 * times and counters, never a token hash, salt or ciphertext. Read-only.
 * May touch: tables uploads, notes, file_requests, request_uploads, tombstones, reports (read
 * only); the blob store (listing).
 */
import { count, desc, eq, isNotNull, min, sql, sum } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import type { BlobStore } from '../storage/blob-store.js'
import type { TombstoneKind } from '../records/tombstones.js'

export type ItemKind = 'upload' | 'note' | 'request' | 'removed'

export const ITEM_KINDS: readonly ItemKind[] = ['upload', 'note', 'request', 'removed']

/** A listed item; `size` is an upload's bytes, a note's ciphertext, a request's kept uploads. */
export type Item = Awaited<ReturnType<Inventory['listKind']>>[number]

const number = (value: unknown): number => Number(value ?? 0)

export class Inventory {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
  ) {}

  /** Counts per kind; `storage` is what the blob store lists, whatever the records say. */
  async stats() {
    const { uploads, notes, fileRequests, requestUploads, tombstones, reports } = this.db.tables
    const q = this.db.query
    const [u] = await q
      .select({ n: count(), bytes: sum(uploads.size), oldest: min(uploads.createdAt) })
      .from(uploads)
    const [n] = await q
      .select({
        n: count(),
        bytes: sum(sql`length(${notes.encryptedContent})`),
        oldest: min(notes.createdAt),
      })
      .from(notes)
    const [r] = await q
      .select({ n: count(), oldest: min(fileRequests.createdAt) })
      .from(fileRequests)
    const [ru] = await q
      .select({ n: count(), bytes: sum(requestUploads.size) })
      .from(requestUploads)
    // A takedown's tombstone is the one with `removedAt` set, which `count(column)` counts.
    const [t] = await q
      .select({ n: count(), takedowns: count(tombstones.removedAt) })
      .from(tombstones)
    const [open] = await q.select({ n: count() }).from(reports).where(eq(reports.status, 'open'))
    const storage = { blobs: 0, bytes: 0 }
    for await (const blob of this.blobs.list()) {
      storage.blobs++
      storage.bytes += blob.size
    }
    const oldest = (value: unknown) =>
      value === null || value === undefined ? null : number(value)
    return {
      uploads: { count: number(u?.n), bytes: number(u?.bytes), oldest: oldest(u?.oldest) },
      notes: { count: number(n?.n), bytes: number(n?.bytes), oldest: oldest(n?.oldest) },
      requests: {
        count: number(r?.n),
        oldest: oldest(r?.oldest),
        uploads: number(ru?.n),
        bytes: number(ru?.bytes),
      },
      tombstones: { count: number(t?.n), takedowns: number(t?.takedowns) },
      reports: { open: number(open?.n) },
      storage,
    }
  }

  /** Items of `kind` (every kind when undefined), newest first, at most `limit` of each kind. */
  async list(kind: ItemKind | undefined, limit: number): Promise<Item[]> {
    const items: Item[] = []
    for (const each of ITEM_KINDS) {
      if (kind === undefined || kind === each) items.push(...(await this.listKind(each, limit)))
    }
    return items
  }

  private async listKind(kind: ItemKind, limit: number) {
    const { uploads, notes, fileRequests, requestUploads, tombstones } = this.db.tables
    const q = this.db.query
    switch (kind) {
      case 'upload': {
        const rows = await q
          .select({
            id: uploads.id,
            size: uploads.size,
            fileCount: uploads.fileCount,
            hasPassword: uploads.hasPassword,
            downloadCount: uploads.downloadCount,
            maxDownloads: uploads.maxDownloads,
            createdAt: uploads.createdAt,
            expiresAt: uploads.expiresAt,
          })
          .from(uploads)
          .orderBy(desc(uploads.createdAt))
          .limit(limit)
        return rows.map((row) => ({ kind: 'upload' as const, ...row }))
      }
      case 'note': {
        const rows = await q
          .select({
            id: notes.id,
            size: sql<number>`length(${notes.encryptedContent})`,
            contentType: notes.contentType,
            hasPassword: notes.hasPassword,
            viewCount: notes.viewCount,
            maxViews: notes.maxViews,
            createdAt: notes.createdAt,
            expiresAt: notes.expiresAt,
          })
          .from(notes)
          .orderBy(desc(notes.createdAt))
          .limit(limit)
        return rows.map((row) => ({ kind: 'note' as const, ...row, size: number(row.size) }))
      }
      case 'request': {
        const rows = await q
          .select({
            id: fileRequests.id,
            size: sql<number>`coalesce(sum(${requestUploads.size}), 0)`,
            uploads: count(requestUploads.id),
            usedUploads: fileRequests.usedUploads,
            maxUploads: fileRequests.maxUploads,
            maxSize: fileRequests.maxSize,
            closed: fileRequests.closed,
            createdAt: fileRequests.createdAt,
            expiresAt: fileRequests.closesAt,
          })
          .from(fileRequests)
          .leftJoin(requestUploads, eq(requestUploads.requestId, fileRequests.id))
          .groupBy(fileRequests.id)
          .orderBy(desc(fileRequests.createdAt))
          .limit(limit)
        return rows.map((row) => ({
          kind: 'request' as const,
          ...row,
          size: number(row.size),
          uploads: number(row.uploads),
        }))
      }
      case 'removed': {
        const rows = await q
          .select({
            id: tombstones.id,
            was: tombstones.kind,
            removedAt: tombstones.removedAt,
            reason: tombstones.takedownReason,
          })
          .from(tombstones)
          .where(isNotNull(tombstones.removedAt))
          .orderBy(desc(tombstones.removedAt))
          .limit(limit)
        return rows.map((row) => ({
          kind: 'removed' as const,
          ...row,
          removedAt: number(row.removedAt),
        }))
      }
    }
  }

  /** What `id` names: a stored item's kind, or a removed one's with `removed` set; or undefined. */
  async find(id: string): Promise<{ kind: TombstoneKind; removed: boolean } | undefined> {
    const { uploads, notes, fileRequests, tombstones } = this.db.tables
    const q = this.db.query
    const stored = [
      ['upload', uploads],
      ['note', notes],
      ['request', fileRequests],
    ] as const
    for (const [kind, table] of stored) {
      const rows = await q.select({ id: table.id }).from(table).where(eq(table.id, id))
      if (rows.length > 0) return { kind, removed: false }
    }
    const [tombstone] = await q
      .select({ kind: tombstones.kind })
      .from(tombstones)
      .where(eq(tombstones.id, id))
    return tombstone && { kind: tombstone.kind as TombstoneKind, removed: true }
  }
}
