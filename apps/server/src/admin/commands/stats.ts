/**
 * `fileshare-admin stats`: counts, bytes, the oldest items and the storage used.
 * May touch: nothing directly; reads through ops/inventory.ts.
 */
import type { AdminContext } from '../context.js'
import { bytes, isoOrNull, time, type CommandOutput } from '../output.js'

export async function statsCommand(ctx: AdminContext): Promise<CommandOutput> {
  const stats = await ctx.inventory.stats()
  const json = {
    uploads: { ...stats.uploads, oldest: isoOrNull(stats.uploads.oldest) },
    notes: { ...stats.notes, oldest: isoOrNull(stats.notes.oldest) },
    requests: { ...stats.requests, oldest: isoOrNull(stats.requests.oldest) },
    tombstones: stats.tombstones,
    reports: stats.reports,
    storage: { backend: ctx.config.storageBackend, database: ctx.db.dialect, ...stats.storage },
  }
  const { uploads, notes, requests, tombstones, reports, storage } = stats
  const text = [
    `uploads     ${uploads.count} (${bytes(uploads.bytes)}), oldest ${time(uploads.oldest)}`,
    `notes       ${notes.count} (${bytes(notes.bytes)}), oldest ${time(notes.oldest)}`,
    `requests    ${requests.count} holding ${requests.uploads} uploads (${bytes(requests.bytes)}), ` +
      `oldest ${time(requests.oldest)}`,
    `tombstones  ${tombstones.count}, of which ${tombstones.takedowns} taken down`,
    `reports     ${reports.open} open`,
    `storage     ${storage.blobs} blobs, ${bytes(storage.bytes)} (${ctx.config.storageBackend}, ` +
      `${ctx.db.dialect})`,
  ].join('\n')
  return { json, text }
}
