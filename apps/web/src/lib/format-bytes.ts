/** Turns a byte count into the short size label shown next to files, e.g. "1.5 MB" or "1,5 MB". */
import { currentLocale } from './i18n/locale.svelte'

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const
const STEP = 1000

export interface FormatBytesOptions {
  /** The language whose digits and decimal sign the number uses; the page's by default. */
  locale?: string
}

/** Formats with SI units (1 KB = 1000 B), one decimal from KB up, trailing ".0" dropped. */
export function formatBytes(bytes: number, { locale = currentLocale() }: FormatBytesOptions = {}) {
  if (!Number.isFinite(bytes) || bytes < 0) {
    throw new RangeError(`formatBytes needs a non-negative finite number, got ${bytes}`)
  }
  let value = bytes
  let unit = 0
  while (unit < UNITS.length - 1 && Math.round(value * 10) / 10 >= STEP) {
    value /= STEP
    unit++
  }
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 })
  // The unit is a symbol every language writes the same; the number follows the language.
  return `${number.format(value)} ${UNITS[unit]}`
}
