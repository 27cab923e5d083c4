/**
 * The inbox's one-line summary of a files upload ("ZIP archive of 3 files, 1.2 MiB"), as one
 * catalogue message, so each language orders and punctuates the count and the size itself.
 */
import { filesOf } from '@fileshare/protocol'

import { formatBytes } from '../format-bytes'
import { t } from '../i18n/t'
import { entryPlainSize, type EntryFacts } from './inbox-entry'

export function entrySummary(entry: Pick<EntryFacts, 'metadata' | 'size'>): string {
  const size = formatBytes(entryPlainSize(entry))
  return entry.metadata.archive
    ? t('inbox.entry.archiveSummary', { count: filesOf(entry.metadata).length, size })
    : t('inbox.entry.fileSummary', { size })
}
