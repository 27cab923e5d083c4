/** Turns a byte count into the short size label shown next to files, e.g. "1.5 MB". */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const
const STEP = 1000

/** Formats with SI units (1 KB = 1000 B), one decimal from KB up, trailing ".0" dropped. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) {
    throw new RangeError(`formatBytes needs a non-negative finite number, got ${bytes}`)
  }
  let value = bytes
  let unit = 0
  while (unit < UNITS.length - 1 && Math.round(value * 10) / 10 >= STEP) {
    value /= STEP
    unit++
  }
  if (unit === 0) return `${Math.round(value)} B`
  const rounded = Math.round(value * 10) / 10
  return `${Number.isInteger(rounded) ? rounded : rounded.toFixed(1)} ${UNITS[unit]}`
}
