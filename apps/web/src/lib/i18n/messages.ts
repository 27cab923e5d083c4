/**
 * The message catalogue: every user-facing string of the app, composed from one file per area
 * so that each page's text lives in one place. English is the source and the fallback; a
 * translation (locales/<tag>.ts) provides the same keys, typed by `Translation`.
 */
import { about } from './en/about'
import { archive } from './en/archive'
import { common } from './en/common'
import { download } from './en/download'
import { history } from './en/history'
import { inbox } from './en/inbox'
import { login } from './en/login'
import { notes } from './en/notes'
import { preview } from './en/preview'
import { report } from './en/report'
import { requests } from './en/requests'
import { tokens } from './en/tokens'
import { upload } from './en/upload'

/** A plural category of `Intl.PluralRules` (CLDR): English has one and other, Polish four. */
export type PluralCategory = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other'

/** The forms a count selects (`{count}` is filled in); `other` is the one every language has. */
export type PluralMessage = { readonly other: string } & {
  readonly [C in PluralCategory]?: string
}

/** A message: plain text, or the forms a count selects. */
export type Message = string | PluralMessage

export const catalogue = {
  ...common,
  ...upload,
  ...download,
  ...preview,
  ...history,
  ...login,
  ...notes,
  ...requests,
  ...inbox,
  ...tokens,
  ...about,
  ...report,
  ...archive,
} satisfies Record<string, Message>

export type MessageKey = keyof typeof catalogue

/**
 * A whole translation: every key of the catalogue and no other, each plain message as text and
 * each plural message with exactly the categories `C` of its language (as `Intl.PluralRules`
 * reports them), so a missing key or form is a compile error.
 */
export type Translation<C extends PluralCategory = PluralCategory> = {
  readonly [K in MessageKey]: (typeof catalogue)[K] extends string
    ? string
    : { readonly [P in C]: string }
}

/** What the lookup needs of a loaded translation. */
export type Messages = Readonly<Record<MessageKey, Message>>
