/** highlight.js ships no types for its per-language modules; each exports one LanguageFn. */
declare module 'highlight.js/lib/languages/*' {
  import type { LanguageFn } from 'highlight.js'
  const language: LanguageFn
  export default language
}
