import { describe, expect, it } from 'vitest'

import {
  emptyEntry,
  parsePasswordList,
  safeEntryUrl,
  serializePasswordList,
  type PasswordEntry,
} from './password-list.js'

const entries: PasswordEntry[] = [
  {
    label: 'Mail',
    username: 'ana@example.org',
    password: ' pa ss "quoted" ',
    url: 'https://m.example',
  },
  { label: 'Router', username: '', password: 'ü€😀\n2nd line', url: '' },
]

describe('password list', () => {
  it('reads back what it wrote, passwords byte for byte', () => {
    expect(parsePasswordList(serializePasswordList(entries))).toEqual(entries)
  })

  it('writes the documented JSON object and drops blank entries', () => {
    const text = serializePasswordList([emptyEntry(), { ...emptyEntry(), password: 'x' }])
    expect(JSON.parse(text)).toEqual({
      format: 'fileshare-passwords',
      version: 1,
      entries: [{ label: '', username: '', password: 'x', url: '' }],
    })
  })

  it('shows text in any other shape as one password', () => {
    expect(parsePasswordList('hunter2\n')).toEqual([{ ...emptyEntry(), password: 'hunter2' }])
    expect(parsePasswordList('{"entries":[]}')).toEqual([
      { ...emptyEntry(), password: '{"entries":[]}' },
    ])
    const wrongField = JSON.stringify({
      format: 'fileshare-passwords',
      version: 1,
      entries: [{ password: 5 }],
    })
    expect(parsePasswordList(wrongField)[0]!.password).toBe(wrongField)
  })

  it('links only http and https addresses', () => {
    expect(safeEntryUrl('https://example.org/x')).toBe('https://example.org/x')
    expect(safeEntryUrl('javascript:alert(1)')).toBeNull()
    expect(safeEntryUrl('example.org')).toBeNull()
  })
})
