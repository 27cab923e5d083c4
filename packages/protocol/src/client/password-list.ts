/**
 * The text of a `password` note, for the web app and the command line alike: a list of entries serialised as one JSON object,
 * `{ "format": "fileshare-passwords", "version": 1, "entries": [{ label, username, password, url }] }`.
 * A `password` note whose text is not that object (one written by hand or by another client) reads
 * back as a single entry holding the whole text as its password, so nothing is ever hidden.
 */

export const PASSWORD_LIST_FORMAT = 'fileshare-passwords'
export const PASSWORD_LIST_VERSION = 1

export interface PasswordEntry {
  label: string
  username: string
  password: string
  url: string
}

const FIELDS = ['label', 'username', 'password', 'url'] as const

export function emptyEntry(): PasswordEntry {
  return { label: '', username: '', password: '', url: '' }
}

/** True when no field of the entry has anything but spaces in it. */
export function isBlankEntry(entry: PasswordEntry): boolean {
  return FIELDS.every((f) => entry[f].trim() === '')
}

/** The note text for `entries`; wholly empty entries are left out. */
export function serializePasswordList(entries: readonly PasswordEntry[]): string {
  const kept = entries
    .filter((e) => !isBlankEntry(e))
    .map((e) => ({
      label: e.label.trim(),
      username: e.username.trim(),
      // A password is kept exactly as typed: spaces may be part of it.
      password: e.password,
      url: e.url.trim(),
    }))
  return JSON.stringify({
    format: PASSWORD_LIST_FORMAT,
    version: PASSWORD_LIST_VERSION,
    entries: kept,
  })
}

/** The entries of a `password` note's text (see the module comment for text in other shapes). */
export function parsePasswordList(text: string): PasswordEntry[] {
  const parsed = tryParse(text)
  if (parsed) return parsed
  return [{ ...emptyEntry(), password: text.replace(/\r?\n$/, '') }]
}

function tryParse(text: string): PasswordEntry[] | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const doc = value as Record<string, unknown>
  if (doc.format !== PASSWORD_LIST_FORMAT || doc.version !== PASSWORD_LIST_VERSION) return null
  if (!Array.isArray(doc.entries)) return null
  const entries: PasswordEntry[] = []
  for (const item of doc.entries as unknown[]) {
    if (typeof item !== 'object' || item === null) return null
    const raw = item as Record<string, unknown>
    const entry = emptyEntry()
    for (const f of FIELDS) {
      const v = raw[f]
      if (v === undefined) continue
      if (typeof v !== 'string') return null
      entry[f] = v
    }
    entries.push(entry)
  }
  return entries
}

/** The entry's address as a link target, or null when it is not an http(s) URL. */
export function safeEntryUrl(url: string): string | null {
  try {
    const parsed = new URL(url.trim())
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null
  } catch {
    return null
  }
}
