import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { applyServerLocales, currentLocale, offeredLocales, pickLocale } from './locale.svelte'
import { localeName, matchLocale, SHIPPED_LOCALES } from './locales'
import { catalogue, type Message, type MessageKey, type Messages } from './messages'
import { format } from './t'

const TRANSLATIONS = Object.entries(
  import.meta.glob<{ default: Messages }>('./locales/*.ts', { eager: true }),
).map(([path, module]) => [path.slice('./locales/'.length, -'.ts'.length), module.default] as const)

const COUNTS = [0, 1, 2, 5, 22]

function placeholders(message: Message): string[] {
  const text = typeof message === 'string' ? message : Object.values(message).join(' ')
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort()
}

/** A value for every placeholder the English message has, numbers where a count goes. */
function sampleParams(key: MessageKey, count: number): Record<string, string | number> {
  return Object.fromEntries(
    placeholders(catalogue[key]).map((name) => [name, name === 'count' ? count : `«${name}»`]),
  )
}

describe('the translations', () => {
  it('ship the ten languages, English first', () => {
    expect(SHIPPED_LOCALES).toEqual(['en', ...TRANSLATIONS.map(([tag]) => tag)])
    expect(SHIPPED_LOCALES).toEqual(
      expect.arrayContaining(['en', 'de', 'fr', 'es', 'it', 'pt-BR', 'pl', 'nl', 'ja', 'zh-CN']),
    )
  })

  it('have every key of the English catalogue and no other', () => {
    const problems: string[] = []
    for (const [tag, messages] of TRANSLATIONS) {
      for (const key of Object.keys(catalogue)) {
        if (!(key in messages)) problems.push(`${tag}: missing ${key}`)
      }
      for (const key of Object.keys(messages)) {
        if (!(key in catalogue)) problems.push(`${tag}: extra ${key}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('keep the placeholders of the English message, in every form', () => {
    const problems: string[] = []
    for (const [tag, messages] of [['en', catalogue] as const, ...TRANSLATIONS]) {
      for (const [key, english] of Object.entries(catalogue) as [MessageKey, Message][]) {
        const message = messages[key]
        if (message === undefined) continue
        if (typeof message !== typeof english) {
          problems.push(`${tag}: ${key} is not a ${typeof english}`)
          continue
        }
        const want = placeholders(english)
        // Every form keeps every placeholder, the count included: a form for one that said
        // "the last" instead would be lost in a language with no such form (ja, zh-CN), so "the
        // last" is a message of its own.
        const forms = typeof message === 'string' ? { text: message } : message
        for (const [form, text] of Object.entries(forms)) {
          const got = placeholders(text)
          if (!want.every((p) => got.includes(p)) || !got.every((p) => want.includes(p))) {
            problems.push(
              `${tag}: ${key} (${form}) has {${got.join(', ')}}, not {${want.join(', ')}}`,
            )
          }
        }
      }
    }
    expect(problems).toEqual([])
  })

  it('give each plural message exactly the forms Intl.PluralRules has for the language', () => {
    const problems: string[] = []
    for (const [tag, messages] of TRANSLATIONS) {
      const categories = new Intl.PluralRules(tag).resolvedOptions().pluralCategories.sort()
      for (const [key, message] of Object.entries(messages)) {
        if (typeof message === 'string') continue
        const forms = Object.keys(message).sort()
        if (forms.join() !== categories.join()) {
          problems.push(`${tag}: ${key} has ${forms.join('/')}, not ${categories.join('/')}`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  it('fill every placeholder for the counts 0, 1, 2, 5 and 22, in every language', () => {
    const problems: string[] = []
    for (const [tag, messages] of [['en', catalogue] as const, ...TRANSLATIONS]) {
      for (const [key, message] of Object.entries(messages) as [MessageKey, Message][]) {
        for (const count of COUNTS) {
          const text = format(message, sampleParams(key, count), tag)
          if (/\{\w*\}/.test(text) || text.trim() === '') {
            problems.push(`${tag}: ${key} for ${count} gives ${JSON.stringify(text)}`)
          }
        }
      }
    }
    expect(problems).toEqual([])
  })

  it('open with a glossary of their terms', () => {
    for (const [tag] of TRANSLATIONS) {
      const source = readFileSync(join(import.meta.dirname, 'locales', `${tag}.ts`), 'utf8')
      expect(source, tag).toMatch(/^\/\*\*[\s\S]*?Glossary:[\s\S]*?\*\//)
    }
  })
})

describe('matchLocale', () => {
  const available = ['en', 'de', 'pt-BR', 'zh-CN', 'ja']

  it.each([
    [['de-DE', 'en'], 'de'],
    [['fr', 'de-AT'], 'de'],
    [['pt-PT'], 'pt-BR'],
    [['PT-br'], 'pt-BR'],
    [['zh'], 'zh-CN'],
    [['zh-Hans-SG'], 'zh-CN'],
    [['zh-TW', 'ja'], 'ja'],
    [['nonsense!', 'en-GB'], 'en'],
  ])('answers %j with %s', (preferred, tag) => {
    expect(matchLocale(preferred, available)).toBe(tag)
  })

  it('answers nothing when no preferred language is available', () => {
    expect(matchLocale(['fr', 'zh-TW'], available)).toBeUndefined()
  })
})

describe('pickLocale', () => {
  const offered = ['en', 'de', 'ja']

  it('takes the remembered choice, then the browser, then the default', () => {
    expect(pickLocale('ja', ['de'], offered, 'en')).toBe('ja')
    expect(pickLocale(null, ['fr', 'de-CH'], offered, 'en')).toBe('de')
    expect(pickLocale(null, ['fr'], offered, 'ja')).toBe('ja')
  })

  it('ignores a remembered choice the server no longer offers', () => {
    expect(pickLocale('pl', ['fr'], offered, 'de')).toBe('de')
  })
})

describe('applyServerLocales', () => {
  it("offers the server's LOCALES it ships and shows its DEFAULT_LOCALE", async () => {
    try {
      await applyServerLocales(['de-DE', 'ja', 'xx'], 'ja')
      expect(offeredLocales()).toEqual(['de', 'ja'])
      expect(currentLocale()).toBe('ja')
    } finally {
      await applyServerLocales([], 'en')
    }
    expect(offeredLocales()).toEqual(SHIPPED_LOCALES)
    expect(currentLocale()).toBe('en')
  })
})

describe('localeName', () => {
  it.each([
    ['de', 'Deutsch'],
    ['fr', 'Français'],
    ['pt-BR', 'Português (Brasil)'],
    ['ja', '日本語'],
    ['zh-CN', '简体中文'],
  ])('names %s %s', (tag, name) => {
    expect(localeName(tag)).toBe(name)
  })
})
