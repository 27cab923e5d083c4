/**
 * The languages the app ships: English, built in, and one module per translation under
 * locales/, found by the build (adding a file adds the language). A translation is its own
 * chunk, fetched only when that language is chosen.
 */
import type { Messages } from './messages'

const TRANSLATIONS = import.meta.glob<{ default: Messages }>('./locales/*.ts')

function tagOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1, -'.ts'.length)
}

export const SOURCE_LOCALE = 'en'

/** Every shipped language tag, English first. */
export const SHIPPED_LOCALES: readonly string[] = [
  SOURCE_LOCALE,
  ...Object.keys(TRANSLATIONS).map(tagOf).sort(),
]

/** The translation of `tag` (a shipped one other than English). */
export async function loadTranslation(tag: string): Promise<Messages> {
  const load = Object.entries(TRANSLATIONS).find(([path]) => tagOf(path) === tag)?.[1]
  if (!load) throw new Error(`no translation for ${tag}`)
  return (await load()).default
}

/**
 * The first of `preferred` (most wanted first, as `navigator.languages`) that one of `available`
 * serves: the same tag, or else the same language in the same script (`de-AT` gets `de`,
 * `pt-PT` gets `pt-BR`, but `zh-TW`, written in Traditional characters, does not get `zh-CN`).
 */
export function matchLocale(
  preferred: readonly string[],
  available: readonly string[],
): string | undefined {
  const parsed = available.flatMap((tag) => {
    const locale = safeLocale(tag)
    return locale ? [{ tag, locale: locale.maximize() }] : []
  })
  for (const wanted of preferred) {
    const exact = available.find((tag) => tag.toLowerCase() === wanted.toLowerCase())
    if (exact) return exact
    const locale = safeLocale(wanted)?.maximize()
    const near =
      locale &&
      parsed.find((a) => a.locale.language === locale.language && a.locale.script === locale.script)
    if (near) return near.tag
  }
  return undefined
}

function safeLocale(tag: string): Intl.Locale | undefined {
  try {
    return new Intl.Locale(tag)
  } catch {
    return undefined
  }
}

/**
 * The language's own name for itself, as a picker lists it: "Deutsch", "Português (Brasil)",
 * and for a language written in several scripts the script's own name ("简体中文" for zh-CN).
 */
export function localeName(tag: string): string {
  const names = new Intl.DisplayNames([tag], { type: 'language' })
  const locale = new Intl.Locale(tag).maximize()
  const scriptName = names.of(`${locale.language}-${locale.script}`)
  const plain = scriptName && !/[(（]/.test(scriptName) && scriptName !== names.of(locale.language)
  const name = (plain ? scriptName : names.of(tag)) ?? tag
  return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1)
}
