/**
 * A password note's entries as lines for a terminal: each entry's name, then its username,
 * password and address, so that `note get` does not print the note's JSON to a person.
 */
import type { PasswordEntry } from '@fileshare/protocol'

const FIELDS: ReadonlyArray<[keyof PasswordEntry, string]> = [
  ['username', 'Username'],
  ['password', 'Password'],
  ['url', 'URL'],
]

export function formatPasswordList(entries: readonly PasswordEntry[]): string {
  const width = Math.max(...FIELDS.map(([, name]) => name.length)) + 1
  return entries
    .map((entry, index) => {
      const lines = [entry.label.trim() || `Entry ${index + 1}`]
      for (const [field, name] of FIELDS) {
        if (entry[field] !== '') lines.push(`  ${`${name}:`.padEnd(width)} ${entry[field]}`)
      }
      return lines.join('\n')
    })
    .join('\n\n')
    .concat('\n')
}
