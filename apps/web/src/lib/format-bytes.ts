/**
 * Sizes on the page: the protocol's one convention (binary multiples, "1.5 MiB"), with the number
 * written in the browser's language.
 */
import { formatBytes as formatBytesIn } from '@fileshare/protocol'

export function formatBytes(bytes: number): string {
  const locale = typeof navigator === 'undefined' ? undefined : navigator.language
  return formatBytesIn(bytes, locale ? { locale } : {})
}
