/**
 * How fileshare-admin prints: one JSON document with `--json`, else lines and aligned tables.
 * May touch: nothing (pure).
 */
import { escapeControls, formatBytes } from '@fileshare/protocol'

/** What a command answers: the JSON document and its text for a person. */
export interface CommandOutput {
  json: unknown
  text: string
  /** 0 unless the command did its work only in part. */
  exitCode?: number
}

export const isoOrNull = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString()

/** A time as ISO 8601, or `-` for none. */
export const time = (ms: number | null | undefined): string => isoOrNull(ms) ?? '-'

/** A byte count in the one notation every fileshare program prints (IEC units, English digits). */
export const bytes = (n: number): string => formatBytes(n, { locale: 'en' })

/** Rows under a header, each column as wide as its widest cell. */
export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)'
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  )
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')
  return [line(header), ...rows.map(line)].join('\n')
}

/** Text from a person (a reason) on one line, control and bidirectional characters escaped. */
export const oneLine = (text: string): string => escapeControls(text, { oneLine: true })
