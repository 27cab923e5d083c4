import { describe, expect, it } from 'vitest'

import {
  MAX_PART_SIZE,
  MAX_PARTS,
  MIN_PART_SIZE,
  planParts,
  type PlannedPart,
  type Range,
} from './s3-join-plan.js'

const MiB = 1024 ** 2

/** The ranges the parts cover, in order, merged where one follows on from the other. */
function covered(parts: readonly PlannedPart[]): Range[] {
  const out: Range[] = []
  for (const part of parts) {
    for (const range of 'copy' in part ? [part.copy] : part.send) {
      const last = out.at(-1)
      if (last && last.source === range.source && last.start + last.length === range.start) {
        last.length += range.length
      } else {
        out.push({ ...range })
      }
    }
  }
  return out
}

function lengthOf(part: PlannedPart): number {
  return 'copy' in part ? part.copy.length : part.length
}

/** What S3 demands of a multipart upload, and what the join promises on top. */
function expectValid(parts: readonly PlannedPart[], ranges: readonly Range[]) {
  expect(covered(parts)).toEqual(covered([{ send: [...ranges], length: 0 }]))
  expect(parts.length).toBeLessThanOrEqual(MAX_PARTS)
  for (const part of parts.slice(0, -1))
    expect(lengthOf(part)).toBeGreaterThanOrEqual(MIN_PART_SIZE)
  for (const part of parts) expect(lengthOf(part)).toBeLessThanOrEqual(MAX_PART_SIZE)
}

describe('planParts', () => {
  it('copies ranges of a part or more and gathers smaller ones with what follows', () => {
    const ranges = [
      { source: 'blob', start: 0, length: 6 * MiB },
      { source: 'small', start: 0, length: 1 * MiB },
      { source: 'blob', start: 6 * MiB, length: 12 * MiB },
      { source: 'tail', start: 0, length: 300 },
    ]
    const parts = planParts(ranges)
    expectValid(parts, ranges)
    expect(parts).toEqual([
      { copy: { source: 'blob', start: 0, length: 6 * MiB } },
      {
        send: [
          { source: 'small', start: 0, length: 1 * MiB },
          { source: 'blob', start: 6 * MiB, length: 4 * MiB },
        ],
        length: 5 * MiB,
      },
      { copy: { source: 'blob', start: 10 * MiB, length: 8 * MiB } },
      { send: [{ source: 'tail', start: 0, length: 300 }], length: 300 },
    ])
  })

  it('merges ranges that follow on in one object into one copy', () => {
    const ranges = [0, 1, 2].map((i) => ({ source: 'blob', start: i * 6 * MiB, length: 6 * MiB }))
    expect(planParts(ranges)).toEqual([{ copy: { source: 'blob', start: 0, length: 18 * MiB } }])
  })

  it('cuts a range past the largest part into even copies', () => {
    const ranges = [{ source: 'blob', start: 0, length: 2 * MAX_PART_SIZE + 1 }]
    const parts = planParts(ranges)
    expect(parts).toHaveLength(3)
    expectValid(parts, ranges)
  })

  it('keeps within the part count however small the chunks', () => {
    // 60,000 chunks of 1 MiB each: parts of 5 MiB would pass 10,000.
    const ranges = Array.from({ length: 60_000 }, (_, i) => ({
      source: `chunk-${i}`,
      start: 0,
      length: MiB,
    }))
    const parts = planParts(ranges)
    expectValid(parts, ranges)
  })

  it('plans nothing for nothing', () => {
    expect(planParts([])).toEqual([])
  })
})
