import { describe, expect, it } from 'vitest'

import { draftProblem, noteText, utf8Length, type NoteDrafts } from './note-draft'
import { emptyEntry, parsePasswordList } from '@fileshare/protocol'

function drafts(over: Partial<NoteDrafts> = {}): NoteDrafts {
  return { prose: '', password: [emptyEntry()], sshkey: '', ...over }
}

describe('note drafts', () => {
  it('sends the draft of the chosen kind only', () => {
    const d = drafts({ prose: 'x = 1', sshkey: 'ssh-ed25519 AAAA' })
    // Text, markdown and code share one draft: switching between them keeps it.
    expect(noteText('text', d)).toBe('x = 1')
    expect(noteText('markdown', d)).toBe('x = 1')
    expect(noteText('code', d)).toBe('x = 1')
    expect(noteText('sshkey', d)).toBe('ssh-ed25519 AAAA')
  })

  it('sends a password list as its JSON text', () => {
    const d = drafts({ password: [{ ...emptyEntry(), password: 'pw' }, emptyEntry()] })
    expect(parsePasswordList(noteText('password', d))).toEqual([
      { ...emptyEntry(), password: 'pw' },
    ])
  })

  it('refuses an empty draft and one over the limit in UTF-8 bytes', () => {
    expect(draftProblem('text', drafts({ prose: '  \n' }), 10)).toBe('empty')
    expect(draftProblem('password', drafts(), 10)).toBe('empty')
    // Four characters, twelve bytes.
    expect(utf8Length('€€€€')).toBe(12)
    expect(draftProblem('text', drafts({ prose: '€€€€' }), 11)).toBe('tooLarge')
    expect(draftProblem('text', drafts({ prose: '€€€€' }), 12)).toBeNull()
  })
})
