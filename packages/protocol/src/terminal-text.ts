/**
 * Text from someone else made safe to print on a terminal, for the `fileshare` and
 * `fileshare-admin` command lines: control characters (C0, DEL, C1) and the bidirectional
 * embeddings, overrides and isolates are shown as escapes instead of being obeyed, so an escape
 * sequence (a clipboard write, a title change, a cursor move) or a reordering of the line
 * (Unicode TR9; CVE-2021-42574) is seen for what it is.
 */

// C0 but newline, tab and the CR of a CRLF; DEL; C1 (U+009B is a one-character CSI); the bidi
// embeddings and overrides (U+202A to U+202E) and isolates (U+2066 to U+2069).
const UNSAFE_IN_LINES =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g
// eslint-disable-next-line no-control-regex
const UNSAFE_ON_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

function escapeOf(char: string): string {
  const code = char.charCodeAt(0)
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `text` with every unsafe character as `\xNN` or `\uNNNN`; newlines and tabs kept, unless
 * `oneLine`, which escapes them too (a table cell, a log line).
 */
export function escapeControls(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine === true ? UNSAFE_ON_ONE_LINE : UNSAFE_IN_LINES, escapeOf)
}

/** `text` with every unsafe character, newlines and tabs too, replaced by `?` (a file name). */
export function maskControls(text: string): string {
  return text.replace(UNSAFE_ON_ONE_LINE, '?')
}
