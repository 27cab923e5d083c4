/**
 * The one size convention of the service: binary multiples (1 KiB = 1024 B). Sizes are shown
 * with IEC symbols (B, KiB, MiB, GiB, TiB) and read from text with either spelling (KB or KiB,
 * both powers of 1024), as the server reads its size settings. See docs/web.md, "Sizes".
 * Durations are whole seconds, typed and shown compactly (`90m`, `7d`, `2h 07m`); a client that
 * words them in its reader's language takes the parts from `splitDuration`.
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

/** The units of a duration, largest first. */
export type DurationUnit = 'week' | 'day' | 'hour' | 'minute' | 'second'

/** Seconds per unit, largest first, with the compact symbol each is typed and shown with. */
const DURATION_UNITS: readonly (readonly [DurationUnit, number, string])[] = [
  ['week', 604_800, 'w'],
  ['day', 86_400, 'd'],
  ['hour', 3_600, 'h'],
  ['minute', 60, 'm'],
  ['second', 1, 's'],
]

const ALL_DURATION_UNITS: readonly DurationUnit[] = DURATION_UNITS.map(([unit]) => unit)

/** One part of a split duration: `count` whole `unit`s. */
export interface DurationPart {
  unit: DurationUnit
  count: number
}

export interface DurationOptions {
  /**
   * `exact` (the default): one part, in the largest unit that divides the rounded duration
   * (5400 → 90 minutes), for an expiry a person picks. `remaining`: the two largest units of
   * the duration rounded up, the second one even when zero (7620 → 2 hours 7 minutes), for a
   * time left.
   */
  style?: 'exact' | 'remaining'
  /** The units to use, largest first; all of them when absent. `second` must be among them. */
  units?: readonly DurationUnit[]
}

/** A non-negative duration in seconds split into parts as `options.style` says. */
export function splitDuration(seconds: number, options: DurationOptions = {}): DurationPart[] {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`A duration needs a non-negative finite number of seconds, got ${seconds}`)
  }
  const allowed = options.units ?? ALL_DURATION_UNITS
  const units = DURATION_UNITS.filter(([unit]) => allowed.includes(unit))
  if (options.style === 'remaining') {
    const whole = Math.ceil(seconds)
    // Below the smallest unit's size (zero) the smallest unit counts it.
    const found = units.findIndex(([, size]) => whole >= size)
    const index = found < 0 ? units.length - 1 : found
    const [unit, size] = units[index]!
    const parts: DurationPart[] = [{ unit, count: Math.floor(whole / size) }]
    const next = units[index + 1]
    if (next) parts.push({ unit: next[0], count: Math.floor((whole % size) / next[1]) })
    return parts
  }
  const whole = Math.round(seconds)
  const [unit, size] = units.find(([, size]) => whole >= size && whole % size === 0) ?? [
    'second',
    1,
  ]
  return [{ unit, count: whole / size }]
}

/**
 * A duration as the command line shows it: `90m`, `1h`, `7d` (exact), `42s`, `3m 05s`, `2h 07m`
 * (remaining; the second part in two digits).
 */
export function formatDuration(seconds: number, options: DurationOptions = {}): string {
  return splitDuration(seconds, options)
    .map(
      ({ unit, count }, i) =>
        `${i === 0 ? count : String(count).padStart(2, '0')}${symbolOf(unit)}`,
    )
    .join(' ')
}

function symbolOf(unit: DurationUnit): string {
  return DURATION_UNITS.find(([name]) => name === unit)![2]
}

/**
 * A duration typed by a person: whole seconds (`90`), or a whole number with s, m, h, d or w in
 * any case (`90s`, `5m`, `1h`, `7d`, `2w`). Throws a RangeError naming the accepted forms for
 * anything else.
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+)\s*([smhdw]?)\s*$/i.exec(text)
  const symbol = (match?.[2] ?? '').toLowerCase() || 's'
  const size = DURATION_UNITS.find(([, , s]) => s === symbol)?.[1]
  const seconds = match && size !== undefined ? Number(match[1]) * size : NaN
  if (!Number.isSafeInteger(seconds)) {
    throw new RangeError(
      `"${text}" is not a duration: use seconds or a whole number with s, m, h, d or w, such as 90, 30m, 12h or 7d`,
    )
  }
  return seconds
}
