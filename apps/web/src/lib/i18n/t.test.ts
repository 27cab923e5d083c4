// @vitest-environment jsdom
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { showLocale } from './locale.svelte'
import { catalogue, type Message } from './messages'
import { format, t } from './t'

const SRC = join(import.meta.dirname, '..', '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(svelte|ts)$/.test(name) && !name.endsWith('.test.ts') ? [path] : []
  })
}

/** Every dotted string literal in the first argument of t(…), both arms of a ternary included. */
function usedKeys(code: string): string[] {
  const keys: string[] = []
  for (const match of code.matchAll(/\bt\(\s*([^,)]*)/g)) {
    for (const literal of match[1]!.matchAll(/'([a-zA-Z]\w*(?:\.\w+)+)'/g)) keys.push(literal[1]!)
  }
  return keys
}

function placeholders(message: Message): string[] {
  const text = typeof message === 'string' ? message : Object.values(message).join(' ')
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort()
}

describe('t', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    expect(format('Hello {name}, {missing}', { name: 'Ada' })).toBe('Hello Ada, {missing}')
  })

  it('picks the plural form by count', () => {
    expect(t('option.downloads', { count: 1 })).toBe('1 download')
    expect(t('option.downloads', { count: 5 })).toBe('5 downloads')
    expect(t('option.downloads', { count: 0 })).toBe('0 downloads')
  })

  it("picks the form by the language's plural rules", () => {
    const files = {
      one: '{count} plik',
      few: '{count} pliki',
      many: '{count} plików',
      other: '{count} pliku',
    }
    expect([1, 2, 5, 22, 25].map((count) => format(files, { count }, 'pl'))).toEqual([
      '1 plik',
      '2 pliki',
      '5 plików',
      '22 pliki',
      '25 plików',
    ])
    expect(format({ other: '{count} 件' }, { count: 1 }, 'ja')).toBe('1 件')
  })

  it("writes numbers the language's way", () => {
    expect(format('{count} files', { count: 12_345 })).toBe('12,345 files')
    expect(format('{count} Dateien', { count: 12_345 }, 'de')).toBe('12.345 Dateien')
  })

  it('follows the chosen language, falling back to English', async () => {
    await showLocale('de')
    try {
      expect(t('download.button')).toBe('Herunterladen')
      expect(t('option.downloads', { count: 2 })).toBe('2 Downloads')
      expect(document.documentElement.lang).toBe('de')
    } finally {
      await showLocale('en')
    }
    expect(t('download.button')).toBe('Download')
    expect(document.documentElement.lang).toBe('en')
  })
})

describe('the message catalogue', () => {
  it('has every key the source uses', () => {
    const missing: string[] = []
    for (const file of sourceFiles(SRC)) {
      for (const key of usedKeys(readFileSync(file, 'utf8'))) {
        if (!(key in catalogue)) missing.push(`${file.slice(SRC.length + 1)}: ${key}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('finds keys in the source (the scan itself works)', () => {
    const keys = sourceFiles(SRC).flatMap((f) => usedKeys(readFileSync(f, 'utf8')))
    expect(keys).toContain('upload.submit')
    expect(keys).toContain('download.button')
  })

  it('has no empty message, and no placeholder only the singular form knows', () => {
    for (const [key, message] of Object.entries(catalogue) as [string, Message][]) {
      if (typeof message === 'string') {
        expect(message.trim(), key).not.toBe('')
      } else {
        expect(message.one?.trim(), key).not.toBe('')
        const other = placeholders(message.other)
        expect(
          placeholders(message.one ?? '').filter((p) => !other.includes(p)),
          key,
        ).toEqual([])
      }
    }
  })
})
