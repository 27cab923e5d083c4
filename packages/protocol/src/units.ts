/**
 * The one size convention of the service: binary multiples (1 KiB = 1024 B). Sizes are shown
 * with IEC symbols (B, KiB, MiB, GiB, TiB) and read from text with either spelling (KB or KiB,
 * both powers of 1024), as the server reads its size settings. See docs/web.md, "Sizes".
 */

const STEP = 1024
const SYMBOLS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const

/** Multipliers of the units `parseBytes` accepts, by their lower-case spelling. */
const FACTORS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: STEP,
  kb: STEP,
  kib: STEP,
  m: STEP ** 2,
  mb: STEP ** 2,
  mib: STEP ** 2,
  g: STEP ** 3,
  gb: STEP ** 3,
  gib: STEP ** 3,
  t: STEP ** 4,
  tb: STEP ** 4,
  tib: STEP ** 4,
}

export interface FormatBytesOptions {
  /** BCP 47 language tag for the number (decimal separator, grouping); the runtime's default if absent. */
  locale?: string
}

/**
 * A byte count as people read it: whole bytes below 1 KiB, then the largest unit that keeps the
 * number under 1024, with one decimal below 10 and none from 10 up ("9.8 KiB", "20 KiB",
 * "1 MiB"); a trailing ".0" is dropped.
 */
export function formatBytes(bytes: number, options: FormatBytesOptions = {}): string {
  if (!Number.isFinite(bytes) || bytes < 0) {
    throw new RangeError(`formatBytes needs a non-negative finite number, got ${bytes}`)
  }
  let value = bytes
  let unit = 0
  // Promote while the rounded figure would read 1024 or more ("1024 KiB" is "1 MiB").
  while (unit < SYMBOLS.length - 1 && roundFor(value, unit) >= STEP) {
    value /= STEP
    unit++
  }
  const digits = unit === 0 || roundFor(value, unit) >= 10 ? 0 : 1
  const number = new Intl.NumberFormat(options.locale, { maximumFractionDigits: digits }).format(
    digits === 0 ? Math.round(value) : value,
  )
  return `${number} ${SYMBOLS[unit]}`
}

/** `value` rounded as it will be shown in `unit`. */
function roundFor(value: number, unit: number): number {
  if (unit === 0 || value >= 10) return Math.round(value)
  const tenths = Math.round(value * 10) / 10
  return tenths >= 10 ? Math.round(value) : tenths
}

/**
 * A size typed by a person or an operator: plain bytes (`1048576`), or a number (decimals
 * allowed) with K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB or TiB in any case, all powers of 1024.
 * Fractions of a byte are dropped. Throws a RangeError naming the accepted forms for anything else.
 */
export function parseBytes(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text)
  const factor = match ? FACTORS[(match[2] ?? '').toLowerCase()] : undefined
  const bytes = match && factor !== undefined ? Math.floor(Number(match[1]) * factor) : NaN
  if (!Number.isSafeInteger(bytes)) {
    throw new RangeError(
      `"${text}" is not a size: use bytes or a number with KB, MB, GB, TB (or KiB, MiB, GiB, TiB; all powers of 1024), such as 1048576, 512KB or 1.5GiB`,
    )
  }
  return bytes
}
