/**
 * The status line of an item on My uploads: what is left and when it expires, as one catalogue
 * message per case, so each language words and punctuates the whole line itself.
 */
import { formatDate } from '../format-time'
import { t } from '../i18n/t'
import type { HistoryItem, HistoryStatus } from '../state/history-store'

/** The line for a live item, or for one whose status the server could not be asked. */
export function statusLine(
  item: Pick<HistoryItem, 'kind' | 'expiresAt'>,
  status: HistoryStatus | undefined,
): string {
  if (status?.state !== 'available' || status.left === undefined) {
    return t('history.status.unknown', { date: formatDate(item.expiresAt) })
  }
  const params = { count: status.left, date: formatDate(status.expiresAt ?? item.expiresAt) }
  if (item.kind === 'file') return t('history.status.file', params)
  if (item.kind === 'note') return t('history.status.note', params)
  if (status.open === false) return t('history.status.requestClosed', params)
  return t('history.status.request', params)
}
