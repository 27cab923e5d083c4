/**
 * `fileshare-admin ls [--kind upload|note|request|removed] [--limit n]`: items with their sizes,
 * times and counters, never a secret (ops/inventory.ts reads no token hash, salt or ciphertext).
 * May touch: nothing directly; reads through ops/inventory.ts.
 */
import { ITEM_KINDS, type Item, type ItemKind } from '../../ops/inventory.js'
import { AdminError } from '../admin-error.js'
import type { AdminContext } from '../context.js'
import { bytes, isoOrNull, oneLine, table, time, type CommandOutput } from '../output.js'

export async function lsCommand(
  ctx: AdminContext,
  options: { kind?: string; limit: number },
): Promise<CommandOutput> {
  const kind = options.kind
  if (kind !== undefined && !ITEM_KINDS.includes(kind as ItemKind)) {
    throw new AdminError(`--kind must be one of ${ITEM_KINDS.join(', ')}`)
  }
  const items = await ctx.inventory.list(kind as ItemKind | undefined, options.limit)
  return { json: { items: items.map(itemJson) }, text: itemsText(items) }
}

function itemJson(item: Item): Record<string, unknown> {
  if (item.kind === 'removed') return { ...item, removedAt: isoOrNull(item.removedAt) }
  return { ...item, createdAt: isoOrNull(item.createdAt), expiresAt: isoOrNull(item.expiresAt) }
}

function counter(item: Item): string {
  switch (item.kind) {
    case 'upload':
      return `${item.downloadCount}/${item.maxDownloads} downloads, ${item.fileCount} files`
    case 'note':
      return `${item.viewCount}/${item.maxViews} views, ${item.contentType}`
    case 'request':
      return (
        `${item.usedUploads}/${item.maxUploads} uploads, ${item.uploads} kept` +
        (item.closed ? ', closed' : '')
      )
    case 'removed':
      return `was ${item.was}${item.reason ? `: ${oneLine(item.reason)}` : ''}`
  }
}

function itemsText(items: Item[]): string {
  return table(
    ['KIND', 'ID', 'SIZE', 'CREATED', 'EXPIRES', 'COUNTERS'],
    items.map((item) =>
      item.kind === 'removed'
        ? [item.kind, item.id, '-', '-', `removed ${time(item.removedAt)}`, counter(item)]
        : [
            item.kind + ('hasPassword' in item && item.hasPassword ? '*' : ''),
            item.id,
            bytes(item.size),
            time(item.createdAt),
            time(item.expiresAt),
            counter(item),
          ],
    ),
  )
}
