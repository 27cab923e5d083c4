/**
 * How the S3 store joins byte ranges of several objects into one multipart upload: which parts
 * S3 copies itself (UploadPartCopy) and which the server reads and sends together (UploadPart).
 * May touch: nothing (pure).
 */

/** The smallest part S3 accepts, except the last of an upload. */
export const MIN_PART_SIZE = 5 * 1024 ** 2
/** The most parts of one multipart upload, numbered 1 to 10,000. */
export const MAX_PARTS = 10_000
/** The largest part, and so the largest range one UploadPartCopy takes. */
export const MAX_PART_SIZE = 5 * 1024 ** 3

/** Bytes `start` to `start + length` of object `source`. */
export interface Range {
  source: string
  start: number
  length: number
}

/** One part of the joined object: a range S3 copies, or small ranges read and sent together. */
export type PlannedPart = { copy: Range } | { send: Range[]; length: number }

/**
 * Plans the parts of an object made of `ranges` in order: a range of at least the target is
 * copied whole (in even pieces past MAX_PART_SIZE), smaller ones are gathered into parts of
 * exactly the target, which is the part minimum or more when MAX_PARTS would not do.
 */
export function planParts(ranges: readonly Range[]): PlannedPart[] {
  const total = ranges.reduce((sum, range) => sum + range.length, 0)
  const target = Math.max(MIN_PART_SIZE, Math.ceil(total / (MAX_PARTS - 1)))
  const parts: PlannedPart[] = []
  let gathered: Range[] = []
  let gatheredLength = 0
  for (const range of merged(ranges)) {
    let { start, length } = range
    while (length > 0) {
      if (gatheredLength === 0 && length >= target) {
        const pieces = Math.ceil(length / MAX_PART_SIZE)
        const base = Math.floor(length / pieces)
        for (let i = 0; i < pieces; i++) {
          const size = i < length % pieces ? base + 1 : base
          parts.push({ copy: { source: range.source, start, length: size } })
          start += size
        }
        length = 0
        continue
      }
      const take = Math.min(length, target - gatheredLength)
      gathered.push({ source: range.source, start, length: take })
      gatheredLength += take
      start += take
      length -= take
      if (gatheredLength === target) {
        parts.push({ send: gathered, length: gatheredLength })
        gathered = []
        gatheredLength = 0
      }
    }
  }
  if (gatheredLength > 0) parts.push({ send: gathered, length: gatheredLength })
  return parts
}

/** Ranges with the one that follows on in the same object merged into one. */
function merged(ranges: readonly Range[]): Range[] {
  const out: Range[] = []
  for (const range of ranges) {
    if (range.length === 0) continue
    const last = out.at(-1)
    if (last && last.source === range.source && last.start + last.length === range.start) {
      last.length += range.length
    } else {
      out.push({ ...range })
    }
  }
  return out
}
