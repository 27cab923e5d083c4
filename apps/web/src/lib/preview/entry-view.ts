/**
 * How one archive entry may be shown in the page: an image by its extension (never SVG, which
 * can carry script), UTF-8 text, or not at all (saved instead). Sizes are bounded because a
 * shown entry is held in memory whole.
 */

export type EntryView = 'image' | 'text'

/** The largest image shown inline. */
export const IMAGE_VIEW_LIMIT = 32 * 1024 * 1024
/** The largest text shown inline. */
export const TEXT_VIEW_LIMIT = 1024 * 1024

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
}

const TEXT_EXTENSIONS = new Set(
  (
    'txt text md markdown csv tsv json jsonl log ini conf cfg toml yaml yml xml ' +
    'c h cc cpp hpp cs go java kt rs py rb php pl sh bash zsh ps1 bat sql ' +
    'js mjs cjs ts tsx jsx css scss less svelte vue html htm tex rst srt vtt diff patch'
  ).split(' '),
)

function extensionOf(path: string): string {
  const name = path.split('/').pop() ?? ''
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
}

/** The media type an image entry is shown as, or null when it is not shown as an image. */
export function imageTypeOf(path: string): string | null {
  return IMAGE_TYPES[extensionOf(path)] ?? null
}

/** How the entry can be viewed, or null when it can only be saved. */
export function entryViewOf(path: string, size: number): EntryView | null {
  if (imageTypeOf(path) !== null) return size <= IMAGE_VIEW_LIMIT ? 'image' : null
  if (TEXT_EXTENSIONS.has(extensionOf(path))) return size <= TEXT_VIEW_LIMIT ? 'text' : null
  return null
}

/** The bytes as text when they are UTF-8 without NUL characters, else null. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
}
