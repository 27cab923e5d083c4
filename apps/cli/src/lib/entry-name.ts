/**
 * The rule every path inside an archive must pass, applied when packing (a name that breaks it is
 * skipped with a warning) and when extracting (an archive holding one is refused whole): relative,
 * `/`-separated, no `.` or `..` segment, no empty segment, no backslash, no control character.
 */
import { maskControls } from '@fileshare/protocol'

// C0 controls and DEL: a name holding them could rewrite the terminal it is printed on.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

/** Why `path` is unsafe as an archive entry, or null when it is safe. Directories end with `/`. */
export function unsafeEntryName(path: string): string | null {
  if (path.length === 0) return 'an empty name'
  if (CONTROL.test(path)) return 'a control character in the name'
  if (path.includes('\\')) return 'a backslash in the name'
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return 'an absolute path'
  const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/')
  if (segments.includes('..')) return 'a ".." segment, which points outside the folder'
  if (segments.includes('.') || segments.includes('')) return 'an empty or "." segment'
  return null
}

/** A name safe to print: control and bidirectional characters replaced by `?`. */
export function printable(name: string): string {
  return maskControls(name)
}
