import { describe, expect, it } from 'vitest'

import { groupEntries, isNoteEntry } from './inbox-groups.js'

describe('isNoteEntry', () => {
  it('tells notes from files', () => {
    expect(isNoteEntry({ metadata: { archive: false, files: [], kind: 'note' } })).toBe(true)
    expect(isNoteEntry({ metadata: { archive: false, files: [] } })).toBe(false)
  })
})

describe('groupEntries', () => {
  const file = (id: string) => ({
    id,
    metadata: { archive: false, files: [{ name: `${id}.pdf`, type: '', size: 1 }] },
  })
  const note = (id: string, withUpload?: string) => ({
    id,
    metadata: {
      archive: false,
      files: [{ name: 'note.txt', type: 'text/plain', size: 1 }],
      kind: 'note' as const,
      ...(withUpload ? { with: withUpload } : {}),
    },
  })

  it('puts a note under the files it came with, and leaves other notes alone', () => {
    const groups = groupEntries([
      file('a'),
      note('n1', 'a'),
      file('b'),
      note('n2'),
      note('n3', 'x'),
    ])
    expect(groups.map((g) => [g.entry.id, g.note?.id ?? null])).toEqual([
      ['a', 'n1'],
      ['b', null],
      ['n2', null],
      ['n3', null],
    ])
  })
})
