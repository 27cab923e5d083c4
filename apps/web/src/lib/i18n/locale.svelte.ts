/**
 * The page's language: which one is shown, which the server offers, and the loaded translation.
 * Chosen from the picker (remembered in localStorage), else from `navigator.languages`, else the
 * server's DEFAULT_LOCALE; it sets `<html lang>`, and changing it re-renders every `t()` at once.
 */
import type { Messages } from './messages'
import { loadTranslation, matchLocale, SHIPPED_LOCALES, SOURCE_LOCALE } from './locales'

const STORAGE_KEY = 'fileshare.locale'

interface Current {
  tag: string
  /** The translation, or null for English. */
  messages: Messages | null
}

let current = $state.raw<Current>({ tag: SOURCE_LOCALE, messages: null })
let offered = $state.raw<readonly string[]>(SHIPPED_LOCALES)
let fallback = SOURCE_LOCALE
/** The last tag asked for, so a slow load cannot overwrite a later choice. */
let wanted = SOURCE_LOCALE

/** The tag of the language shown. */
export function currentLocale(): string {
  return current.tag
}

/** The loaded translation, or null while English is shown. */
export function currentMessages(): Messages | null {
  return current.messages
}

/** The languages the picker lists. */
export function offeredLocales(): readonly string[] {
  return offered
}

/** Shows `tag` (one of the offered languages), loading its translation first. */
export async function showLocale(tag: string): Promise<void> {
  wanted = tag
  const messages = tag === SOURCE_LOCALE ? null : await loadTranslation(tag)
  if (wanted !== tag) return
  current = { tag, messages }
  if (typeof document !== 'undefined') document.documentElement.lang = tag
}

/** The picker's choice: shown at once and remembered for the next visit. */
export function chooseLocale(tag: string): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, tag)
  } catch {
    // Storage may be blocked; the choice then lasts for this page only.
  }
  return showLocale(tag)
}

function remembered(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY)
  } catch {
    return null
  }
}

/** The language to show: the remembered choice, the browser's preference, the default. */
export function pickLocale(
  stored: string | null,
  preferred: readonly string[],
  available: readonly string[],
  defaultTag: string,
): string {
  return (
    matchLocale(stored ? [stored] : [], available) ??
    matchLocale(preferred, available) ??
    matchLocale([defaultTag], available) ??
    available[0] ??
    SOURCE_LOCALE
  )
}

function preferredLocales(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : navigator.languages
}

/** Shows the best language before the first render; a failed load leaves English. */
export function startLocale(): Promise<void> {
  const tag = pickLocale(remembered(), preferredLocales(), offered, fallback)
  return showLocale(tag).catch(() => undefined)
}

/**
 * Narrows the languages to the server's `LOCALES` (empty: all shipped) with its DEFAULT_LOCALE,
 * and switches if the one shown is no longer offered or the browser prefers none.
 */
export function applyServerLocales(
  locales: readonly string[],
  defaultLocale: string,
): Promise<void> {
  const listed = locales.flatMap((tag) => matchLocale([tag], SHIPPED_LOCALES) ?? [])
  offered =
    listed.length > 0 ? listed.filter((tag, i) => listed.indexOf(tag) === i) : SHIPPED_LOCALES
  fallback = matchLocale([defaultLocale], offered) ?? offered[0] ?? SOURCE_LOCALE
  const tag = pickLocale(remembered(), preferredLocales(), offered, fallback)
  return tag === current.tag ? Promise.resolve() : showLocale(tag).catch(() => undefined)
}
