/**
 * Looks up user-facing text in the page's language. Keys are typed, so a missing key is a
 * compile error; `{name}` placeholders are filled from `params` (numbers written the language's
 * way), and a plural message picks its form for `params.count` by `Intl.PluralRules`. A key the
 * translation lacks is shown in English. Reading the language here makes every `t()` in a
 * template re-render when it changes.
 */
import { currentLocale, currentMessages } from './locale.svelte'
import { SOURCE_LOCALE } from './locales'
import { catalogue, type Message, type MessageKey } from './messages'

export type { MessageKey }

export type MessageParams = Readonly<Record<string, string | number>>

const PLACEHOLDER = /\{(\w+)\}/g

const pluralRules = new Map<string, Intl.PluralRules>()
const numberFormats = new Map<string, Intl.NumberFormat>()

function cached<T>(map: Map<string, T>, lang: string, make: () => T): T {
  let value = map.get(lang)
  if (!value) map.set(lang, (value = make()))
  return value
}

/** Fills `message` for `params` by the rules of `lang`. */
export function format(message: Message, params?: MessageParams, lang = SOURCE_LOCALE): string {
  let text: string
  if (typeof message === 'string') {
    text = message
  } else {
    const count = Number(params?.count)
    const rules = cached(pluralRules, lang, () => new Intl.PluralRules(lang))
    text = message[rules.select(count)] ?? message.other
  }
  if (!params) return text
  const numbers = cached(numberFormats, lang, () => new Intl.NumberFormat(lang))
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!(name in params)) return whole
    const value = params[name]!
    return typeof value === 'number' ? numbers.format(value) : value
  })
}

export function t(key: MessageKey, params?: MessageParams): string {
  const translated = currentMessages()?.[key]
  return translated === undefined
    ? format(catalogue[key], params)
    : format(translated, params, currentLocale())
}
