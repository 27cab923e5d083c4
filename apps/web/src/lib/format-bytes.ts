/**
 * Sizes on the page: the protocol's one convention (binary multiples, "1.5 MiB"), with the number
 * written in the page's language ("1,5 MiB" in German) and held to its unit by a no-break space,
 * so that a narrow line never puts "38" at its end and "KiB" on the next.
 */
import { formatBytes as formatBytesIn } from '@fileshare/protocol'

import { currentLocale } from './i18n/locale.svelte'

export function formatBytes(bytes: number): string {
  return formatBytesIn(bytes, { locale: currentLocale() }).replace(/ (?=\S+$)/, '\u00a0')
}
