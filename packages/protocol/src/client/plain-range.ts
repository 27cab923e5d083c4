/**
 * Byte ranges of a payload's plaintext: the answer to a reader's `Range` header over the
 * plaintext (RFC 9110 §14), and which sealed records hold a plaintext range, where they lie in
 * the ciphertext and what to drop of the first one (docs/crypto.md, "Reading ranges"). Pure
 * arithmetic; the fetching and opening is download-ranges.ts's.
 */
import { recordCount, RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'

const SEALED_RECORD = RECORD_SIZE + RECORD_TAG_SIZE

/** The sealed records that hold plaintext bytes `start` up to `end` (exclusive). */
export interface RecordSpan {
  /** First and last record, inclusive. */
  first: number
  last: number
  /** First and last ciphertext byte of those records, inclusive. */
  cipherFrom: number
  cipherTo: number
  /** Plaintext bytes of the first record before `start`. */
  skip: number
}

/**
 * Maps plaintext bytes `start` up to `end` (exclusive, `start < end`) of a payload of
 * `plainSize` bytes to its records. Throws RangeError for a range outside the payload.
 */
export function recordSpan(start: number, end: number, plainSize: number): RecordSpan {
  if (![start, end, plainSize].every(Number.isSafeInteger) || start < 0 || end > plainSize) {
    throw new RangeError('The range lies outside the payload')
  }
  if (end <= start) throw new RangeError('The range is empty')
  const records = recordCount(plainSize)
  const cipherSize = plainSize + RECORD_TAG_SIZE * records
  const first = Math.floor(start / RECORD_SIZE)
  const last = Math.floor((end - 1) / RECORD_SIZE)
  return {
    first,
    last,
    cipherFrom: first * SEALED_RECORD,
    cipherTo: Math.min((last + 1) * SEALED_RECORD, cipherSize) - 1,
    skip: start - first * RECORD_SIZE,
  }
}

/** The length of sealed record `index` in a ciphertext of `cipherSize` bytes. */
export function sealedRecordLength(index: number, cipherSize: number): number {
  return Math.min(SEALED_RECORD, cipherSize - index * SEALED_RECORD)
}

/** How to answer a request for a payload of `size` bytes, and which bytes (`end` exclusive). */
export type RangeAnswer =
  | { status: 200 | 206; start: number; end: number; headers: Record<string, string> }
  | { status: 416; headers: Record<string, string> }

/**
 * The answer to a `Range` header (null: none) over a payload of `size` bytes of type `type`:
 * 206 with `Content-Range` for one satisfiable range (`first-last`, `first-`, or the suffix
 * `-length`; a last byte past the end is cut to the end), 416 with `Content-Range: bytes
 * *\/size` for one that lies wholly outside, and 200 with the whole payload for no header or one
 * this answer does not serve (another unit, several ranges, bad syntax), as RFC 9110 §14.2 lets
 * a server ignore those.
 */
export function answerRange(header: string | null, size: number, type: string): RangeAnswer {
  const base = { 'Content-Type': type, 'Accept-Ranges': 'bytes' }
  const whole = { status: 200 as const, start: 0, end: size }
  const range = header === null ? null : parseRange(header)
  if (range === null) return { ...whole, headers: { ...base, 'Content-Length': String(size) } }
  let start: number
  let end: number
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) return unsatisfiable(base, size)
    start = Math.max(0, size - range.suffix)
    end = size
  } else {
    if (range.first >= size) return unsatisfiable(base, size)
    start = range.first
    end = range.last === null ? size : Math.min(range.last + 1, size)
  }
  return {
    status: 206,
    start,
    end,
    headers: {
      ...base,
      'Content-Length': String(end - start),
      'Content-Range': `bytes ${start}-${end - 1}/${size}`,
    },
  }
}

function unsatisfiable(base: Record<string, string>, size: number): RangeAnswer {
  return { status: 416, headers: { ...base, 'Content-Range': `bytes */${size}` } }
}

/** One `bytes=` range (`last` null: to the end), a suffix length, or null for anything else. */
function parseRange(
  header: string,
): { first: number; last: number | null } | { suffix: number } | null {
  const match = /^\s*bytes\s*=\s*([0-9]*)\s*-\s*([0-9]*)\s*$/i.exec(header)
  if (match === null) return null
  const [, firstText = '', lastText = ''] = match
  if (firstText === '' && lastText === '') return null
  const last = lastText === '' ? null : Number(lastText)
  if (last !== null && !Number.isSafeInteger(last)) return null
  if (firstText === '') return { suffix: last! }
  const first = Number(firstText)
  if (!Number.isSafeInteger(first) || (last !== null && last < first)) return null
  return { first, last }
}
