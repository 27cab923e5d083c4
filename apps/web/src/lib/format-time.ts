/**
 * Durations and dates as people read them, in the page's language through `Intl` (so the
 * catalogue need not carry unit names): "7 days", "1 hour", "in 3 hours", "2 min 5 s".
 */
import { currentLocale } from './i18n/locale.svelte'

const UNITS: readonly [Intl.NumberFormatOptions['unit'] & string, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
]

function locale(): string {
  return currentLocale()
}

/** A whole duration in its largest exact unit: 604800 → "7 days", 5400 → "90 minutes". */
export function formatDuration(seconds: number, lang = locale()): string {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`formatDuration needs a non-negative finite number, got ${seconds}`)
  }
  const whole = Math.round(seconds)
  const [unit, size] = UNITS.find(([, s]) => whole >= s && whole % s === 0) ?? ['second', 1]
  return unitText(unit, whole / size, lang)
}

/** A remaining time in its two largest units: "2 hours 5 minutes", "45 seconds". */
export function formatRemaining(seconds: number, lang = locale()): string {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`formatRemaining needs a non-negative finite number, got ${seconds}`)
  }
  const whole = Math.max(1, Math.ceil(seconds))
  const index = UNITS.findIndex(([, size]) => whole >= size)
  const [unit, size] = UNITS[index]!
  const count = Math.floor(whole / size)
  const parts = [unitText(unit, count, lang)]
  const next = UNITS[index + 1]
  if (next) {
    const rest = Math.floor((whole - count * size) / next[1])
    if (rest > 0) parts.push(unitText(next[0], rest, lang))
  }
  return new Intl.ListFormat(lang, { type: 'unit', style: 'narrow' }).format(parts)
}

function unitText(unit: string, count: number, lang: string): string {
  return new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'long' }).format(count)
}

/** An absolute moment: "12 March 2026, 14:05" style, in the browser's language and zone. */
export function formatDate(iso: string, lang = locale()): string {
  const time = Date.parse(iso)
  if (Number.isNaN(time)) throw new RangeError(`formatDate needs an ISO timestamp, got ${iso}`)
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(time)
}

/** A moment relative to now: "in 3 hours", "2 days ago". */
export function formatRelative(iso: string, now = Date.now(), lang = locale()): string {
  const time = Date.parse(iso)
  if (Number.isNaN(time)) throw new RangeError(`formatRelative needs an ISO timestamp, got ${iso}`)
  const diff = Math.round((time - now) / 1000)
  const abs = Math.abs(diff)
  const rtf = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' })
  for (const [unit, size] of UNITS) {
    if (abs >= size || unit === 'second') {
      return rtf.format(Math.round(diff / size), unit as Intl.RelativeTimeFormatUnit)
    }
  }
  return rtf.format(diff, 'second')
}
