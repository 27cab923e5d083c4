/**
 * What a file can be shown as in the page, decided from its name, its declared media type and its
 * size alone (both come from the sender, so they only choose among safe renderings): an image
 * through `<img>`, a PDF in the browser's viewer, text, markdown or code as notes render them,
 * media and archives for their own previews. The media type a preview's Blob carries is chosen
 * here from a fixed list, never copied from the upload, so no upload is ever read as HTML.
 */

export type PreviewKind = 'image' | 'pdf' | 'text' | 'markdown' | 'code' | 'media' | 'archive'

/** A file that can be shown: how, and the media type its Blob gets. */
export interface PreviewPlan {
  kind: PreviewKind
  /** The type the decrypted Blob is given (fixed per kind, never the sender's). */
  type: string
  /** For code: the highlight.js language its extension names, if any. */
  language?: string
}

/** The kinds shown from the whole decrypted file, held in memory. */
export const WHOLE_FILE_KINDS: ReadonlySet<PreviewKind> = new Set([
  'image',
  'pdf',
  'text',
  'markdown',
  'code',
])

const MIB = 1024 * 1024

/** The largest file each kind is shown for; larger ones are only saved. */
export const PREVIEW_LIMITS: Readonly<Record<PreviewKind, number>> = {
  image: 50 * MIB,
  pdf: 100 * MIB,
  text: 5 * MIB,
  // Rendering and highlighting are slow on large inputs: larger ones are shown as plain text.
  markdown: 1 * MIB,
  code: 1 * MIB,
  media: Number.MAX_SAFE_INTEGER,
  archive: Number.MAX_SAFE_INTEGER,
}

const TEXT_TYPE = 'text/plain;charset=utf-8'

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  apng: 'image/apng',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jfif: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
}

/** File extensions of code, by the highlight.js language that reads them. */
const CODE_LANGUAGES: Readonly<Record<string, string>> = {
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  css: 'css',
  diff: 'diff',
  patch: 'diff',
  go: 'go',
  html: 'xml',
  htm: 'xml',
  xhtml: 'xml',
  xml: 'xml',
  ini: 'ini',
  toml: 'ini',
  cfg: 'ini',
  conf: 'ini',
  java: 'java',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  json: 'json',
  kt: 'kotlin',
  lua: 'lua',
  mk: 'makefile',
  php: 'php',
  ps1: 'powershell',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  sql: 'sql',
  swift: 'swift',
  ts: 'typescript',
  tsx: 'typescript',
  yml: 'yaml',
  yaml: 'yaml',
  svelte: 'xml',
  vue: 'xml',
}

/** Code files known by their whole name rather than an extension. */
const CODE_NAMES: Readonly<Record<string, string>> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
}

const MARKDOWN = new Set(['md', 'markdown', 'mdown', 'mkd'])
const TEXT = new Set(['txt', 'text', 'log', 'csv', 'tsv', 'env'])
const MEDIA = new Set(
  ['mp3', 'm4a', 'aac', 'wav', 'flac', 'oga', 'ogg', 'opus'].concat([
    'mp4',
    'm4v',
    'webm',
    'mov',
    'ogv',
    'mkv',
  ]),
)

export interface PreviewFile {
  name: string
  /** The declared media type (may be empty). */
  type: string
  size: number
}

function extensionOf(name: string): string {
  const base = name.split('/').pop() ?? ''
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : ''
}

/** The kind a name or, failing that, a media type says, before any size limit. */
function planOf(file: PreviewFile): PreviewPlan | null {
  const ext = extensionOf(file.name)
  const base = (file.name.split('/').pop() ?? '').toLowerCase()
  const mime = file.type.toLowerCase().split(';')[0]!.trim()
  if (ext === 'zip' || mime === 'application/zip')
    return { kind: 'archive', type: 'application/zip' }
  const image = IMAGE_TYPES[ext] ?? Object.values(IMAGE_TYPES).find((type) => type === mime)
  if (image) return { kind: 'image', type: image }
  if (ext === 'pdf' || mime === 'application/pdf') return { kind: 'pdf', type: 'application/pdf' }
  if (MEDIA.has(ext) || mime.startsWith('audio/') || mime.startsWith('video/')) {
    return { kind: 'media', type: 'application/octet-stream' }
  }
  if (MARKDOWN.has(ext) || mime === 'text/markdown') return { kind: 'markdown', type: TEXT_TYPE }
  const language = CODE_LANGUAGES[ext] ?? CODE_NAMES[base]
  if (language) return { kind: 'code', type: TEXT_TYPE, language }
  if (TEXT.has(ext) || mime.startsWith('text/') || mime === 'application/json') {
    return { kind: 'text', type: TEXT_TYPE }
  }
  return null
}

/**
 * How `file` can be shown, or null when it can only be saved: an unknown kind, or larger than
 * its kind's limit (markdown and code above theirs fall back to plain text).
 */
export function previewPlanOf(file: PreviewFile): PreviewPlan | null {
  const plan = planOf(file)
  if (!plan || file.size <= PREVIEW_LIMITS[plan.kind]) return plan
  if ((plan.kind === 'markdown' || plan.kind === 'code') && file.size <= PREVIEW_LIMITS.text) {
    return { kind: 'text', type: TEXT_TYPE }
  }
  return null
}

/**
 * The plan for an upload of `fileCount` files as its metadata describes it: several files (or
 * a folder) are one archive; a single file is planned by its own name, type and size.
 */
export function uploadPreviewPlan(
  metadata: { archive: boolean; files: readonly PreviewFile[] } | null,
  fileCount: number,
): PreviewPlan | null {
  if (!metadata) return null
  if (metadata.archive || fileCount > 1) return { kind: 'archive', type: 'application/zip' }
  const [only] = metadata.files
  return only ? previewPlanOf(only) : null
}

/** Whether a PDF's bytes begin as one: its header within the first kilobyte. */
export function looksLikePdf(head: Uint8Array): boolean {
  const text = new TextDecoder('latin1').decode(head.subarray(0, 1024))
  return text.includes('%PDF-')
}
