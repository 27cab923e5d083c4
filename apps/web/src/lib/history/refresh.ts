/**
 * Asks the server how an item of the history is doing: downloads, views or uploads left and the
 * expiry, or that it is gone (404, 410). Reading counts nothing: the file and note info routes
 * and the inbox listing never consume a download or a view.
 */
import { isApiError, parseLink, submissionsUsed } from '@fileshare/protocol'

import type { HistoryItem, HistoryStatus } from '../state/history-store'

/** The worker calls this needs; injected so the logic is testable without a worker. */
export interface StatusSource {
  inspectFile(
    href: string,
  ): Promise<{ maxDownloads: number; downloadCount: number; expiresAt: string }>
  inspectNote(href: string): Promise<{ maxViews: number; viewCount: number; expiresAt: string }>
  openInbox(href: string): Promise<{
    handle: string
    inbox: {
      maxUploads: number
      usedUploads: number
      usedNotes?: number | undefined
      brief: { acceptsNote: boolean }
      closesAt: string
      open: boolean
    }
  }>
  release(handle: string): Promise<void>
}

/** An inbox link with a password cannot be opened without asking for it. */
export function inboxNeedsPassword(inboxLink: string): boolean {
  try {
    const { link } = parseLink(inboxLink)
    return link.kind === 'inbox' && link.passwordSalt !== undefined
  } catch {
    return true
  }
}

/** A live item: what is left of its limit (never below 0, as counts can pass it) and its expiry. */
function available(limit: number, used: number, expiresAt: string, checkedAt: string) {
  return { state: 'available' as const, left: Math.max(0, limit - used), expiresAt, checkedAt }
}

export async function fetchStatus(
  item: HistoryItem,
  source: StatusSource,
  now = new Date(),
): Promise<HistoryStatus> {
  const checkedAt = now.toISOString()
  try {
    if (item.kind === 'file') {
      const info = await source.inspectFile(item.link)
      return available(info.maxDownloads, info.downloadCount, info.expiresAt, checkedAt)
    }
    if (item.kind === 'note') {
      const info = await source.inspectNote(item.link)
      return available(info.maxViews, info.viewCount, info.expiresAt, checkedAt)
    }
    if (!item.inboxLink || inboxNeedsPassword(item.inboxLink)) {
      return { state: 'unknown', checkedAt }
    }
    const { handle, inbox } = await source.openInbox(item.inboxLink)
    await source.release(handle).catch(() => undefined)
    // Uploads as the requester counts them: a sender's note is part of the sender's upload.
    const uploads = submissionsUsed({ ...inbox, acceptsNote: inbox.brief.acceptsNote })
    return {
      ...available(uploads.max, uploads.used, inbox.closesAt, checkedAt),
      open: inbox.open,
    }
  } catch (error) {
    if (isApiError(error, 404) || isApiError(error, 410)) return { state: 'gone', checkedAt }
    return { state: 'unknown', checkedAt }
  }
}
