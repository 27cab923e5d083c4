/** Parsing and printing of the durations, sizes and dates users type and read. */
import {
  formatBytes as formatBytesIn,
  formatDuration as formatDurationIn,
  parseDuration as parseDurationIn,
} from '@fileshare/protocol'

/** `90`, `90s`, `5m`, `1h`, `7d`, `2w` → seconds; null when the text is none of these. */
export function parseDuration(text: string): number | null {
  try {
    return parseDurationIn(text)
  } catch {
    return null
  }
}

/**
 * Seconds in the largest unit up to days that divides them exactly: 3600 → `1h`, 5400 → `90m`,
 * a week `7d`, as the help and the docs write it (`2w` is still read).
 */
export function formatDuration(seconds: number): string {
  return formatDurationIn(seconds, { units: ['day', 'hour', 'minute', 'second'] })
}

/** Time left for a progress bar: `42s`, `3m 05s`, `2h 07m`; `–` when unknown (no rate yet). */
export function formatRemaining(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–'
  return formatDurationIn(seconds, { style: 'remaining', units: ['hour', 'minute', 'second'] })
}

/** Bytes in the service's one convention (binary multiples, `1.5 MiB`); the CLI writes English. */
export function formatBytes(bytes: number): string {
  return formatBytesIn(bytes, { locale: 'en' })
}

/** `in 3 days`, `in 5 hours`, `2 minutes ago`: the rough distance from `now` to `date`. */
export function formatRelative(date: Date, now = new Date()): string {
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000)
  const abs = Math.abs(seconds)
  const steps: ReadonlyArray<[string, number]> = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
    ['second', 1],
  ]
  // 23.9 hours reads better as "1 day": a unit is used from 90% of it up.
  const [name, size] = steps.find(([, s]) => abs >= s * 0.9) ?? ['second', 1]
  const count = Math.round(abs / size)
  const text = `${count} ${name}${count === 1 ? '' : 's'}`
  return seconds >= 0 ? `in ${text}` : `${text} ago`
}

/** A local date and time to the minute, `2025-11-23 18:05`, unambiguous in any locale. */
export function formatDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`
  )
}

/** `2025-11-23 18:05 (in 3 days)`. */
export function formatWhen(iso: string, now = new Date()): string {
  const date = new Date(iso)
  return `${formatDate(date)} (${formatRelative(date, now)})`
}
