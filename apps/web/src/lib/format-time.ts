/**
 * Durations and dates as people read them, in the page's language through `Intl` (so the
 * catalogue need not carry unit names): "7 days", "1 hour", "in 3 hours", "2 min 5 s".
 */
import { splitDuration } from '@fileshare/protocol'

import { currentLocale } from './i18n/locale.svelte'

const UNITS = ['day', 'hour', 'minute', 'second'] as const

function locale(): string {
  return currentLocale()
}

/** A whole duration in its largest exact unit: 604800 → "7 days", 5400 → "90 minutes". */
export function formatDuration(seconds: number, lang = locale()): string {
  const [part] = splitDuration(seconds, { units: UNITS })
  return unitText(part!.unit, part!.count, lang)
}

/** A remaining time in its two largest units: "2 hours 5 minutes", "45 seconds". */
export function formatRemaining(seconds: number, lang = locale()): string {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`formatRemaining needs a non-negative finite number, got ${seconds}`)
  }
  // A time left reads at least "1 second"; a second part of zero is left out.
  const parts = splitDuration(seconds === 0 ? 1 : seconds, { style: 'remaining', units: UNITS })
    .filter((part, i) => i === 0 || part.count > 0)
    .map((part) => unitText(part.unit, part.count, lang))
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

const RELATIVE_UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
]

/** A moment relative to now: "in 3 hours", "2 days ago". */
export function formatRelative(iso: string, now = Date.now(), lang = locale()): string {
  const time = Date.parse(iso)
  if (Number.isNaN(time)) throw new RangeError(`formatRelative needs an ISO timestamp, got ${iso}`)
  const diff = Math.round((time - now) / 1000)
  const abs = Math.abs(diff)
  const rtf = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' })
  for (const [unit, size] of RELATIVE_UNITS) {
    if (abs >= size || unit === 'second') {
      return rtf.format(Math.round(diff / size), unit)
    }
  }
  return rtf.format(diff, 'second')
}
