/**
 * Syntax highlighting of code notes with highlight.js: the core and each language are separate
 * chunks loaded on first use (auto-detection loads them all), so no page pays for the highlighter
 * until it shows code. highlight.js escapes the code and adds only `<span class="hljs-…">`.
 */
import type { HLJSApi, LanguageFn } from 'highlight.js'

type Loader = () => Promise<{ default: LanguageFn }>

/** The languages offered, by highlight.js name, with the name people know them by. */
export const LANGUAGES: ReadonlyArray<{ id: string; name: string; load: Loader }> = [
  { id: 'bash', name: 'Bash', load: () => import('highlight.js/lib/languages/bash') },
  { id: 'c', name: 'C', load: () => import('highlight.js/lib/languages/c') },
  { id: 'cpp', name: 'C++', load: () => import('highlight.js/lib/languages/cpp') },
  { id: 'csharp', name: 'C#', load: () => import('highlight.js/lib/languages/csharp') },
  { id: 'css', name: 'CSS', load: () => import('highlight.js/lib/languages/css') },
  { id: 'diff', name: 'Diff', load: () => import('highlight.js/lib/languages/diff') },
  {
    id: 'dockerfile',
    name: 'Dockerfile',
    load: () => import('highlight.js/lib/languages/dockerfile'),
  },
  { id: 'go', name: 'Go', load: () => import('highlight.js/lib/languages/go') },
  { id: 'xml', name: 'HTML / XML', load: () => import('highlight.js/lib/languages/xml') },
  { id: 'ini', name: 'INI / TOML', load: () => import('highlight.js/lib/languages/ini') },
  { id: 'java', name: 'Java', load: () => import('highlight.js/lib/languages/java') },
  {
    id: 'javascript',
    name: 'JavaScript',
    load: () => import('highlight.js/lib/languages/javascript'),
  },
  { id: 'json', name: 'JSON', load: () => import('highlight.js/lib/languages/json') },
  { id: 'kotlin', name: 'Kotlin', load: () => import('highlight.js/lib/languages/kotlin') },
  { id: 'lua', name: 'Lua', load: () => import('highlight.js/lib/languages/lua') },
  { id: 'makefile', name: 'Makefile', load: () => import('highlight.js/lib/languages/makefile') },
  { id: 'markdown', name: 'Markdown', load: () => import('highlight.js/lib/languages/markdown') },
  { id: 'nginx', name: 'Nginx', load: () => import('highlight.js/lib/languages/nginx') },
  { id: 'php', name: 'PHP', load: () => import('highlight.js/lib/languages/php') },
  {
    id: 'powershell',
    name: 'PowerShell',
    load: () => import('highlight.js/lib/languages/powershell'),
  },
  { id: 'python', name: 'Python', load: () => import('highlight.js/lib/languages/python') },
  { id: 'ruby', name: 'Ruby', load: () => import('highlight.js/lib/languages/ruby') },
  { id: 'rust', name: 'Rust', load: () => import('highlight.js/lib/languages/rust') },
  { id: 'sql', name: 'SQL', load: () => import('highlight.js/lib/languages/sql') },
  { id: 'swift', name: 'Swift', load: () => import('highlight.js/lib/languages/swift') },
  {
    id: 'typescript',
    name: 'TypeScript',
    load: () => import('highlight.js/lib/languages/typescript'),
  },
  { id: 'yaml', name: 'YAML', load: () => import('highlight.js/lib/languages/yaml') },
]

/** `language` value that asks highlight.js to guess among all languages above. */
export const AUTO = 'auto'
/** `language` value for no highlighting. */
export const PLAIN = 'plaintext'

/** Beyond this many characters code is shown plain: guessing and colouring would stall the page. */
export const MAX_HIGHLIGHT_CHARS = 200_000

export interface Highlighted {
  /** Escaped HTML, safe to insert. */
  html: string
  /** The language used, or `plaintext`. */
  language: string
}

let core: Promise<HLJSApi> | undefined
const registered = new Map<string, Promise<void>>()

/** The highlighted HTML of `code` in `language` (an id of LANGUAGES, `auto` or `plaintext`). */
export async function highlightCode(code: string, language: string): Promise<Highlighted> {
  if (language === PLAIN || code.length > MAX_HIGHLIGHT_CHARS) return plain(code)
  const known = LANGUAGES.find((l) => l.id === language)
  if (language !== AUTO && !known) return plain(code)
  core ??= import('highlight.js/lib/core').then((m) => m.default)
  const hljs = await core
  if (known) {
    await register(hljs, known.id, known.load)
    return {
      html: hljs.highlight(code, { language: known.id, ignoreIllegals: true }).value,
      language,
    }
  }
  await Promise.all(LANGUAGES.map((l) => register(hljs, l.id, l.load)))
  const result = hljs.highlightAuto(
    code,
    LANGUAGES.map((l) => l.id),
  )
  return result.language ? { html: result.value, language: result.language } : plain(code)
}

function register(hljs: HLJSApi, id: string, load: Loader): Promise<void> {
  let done = registered.get(id)
  if (!done) {
    done = load().then((m) => hljs.registerLanguage(id, m.default))
    registered.set(id, done)
  }
  return done
}

function plain(code: string): Highlighted {
  return { html: escapeHtml(code), language: PLAIN }
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}
