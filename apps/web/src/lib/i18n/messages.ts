/**
 * The message catalogue: every user-facing string of the app, composed from one file per area
 * so that each page's text lives in one place. A translation provides the same keys.
 */
import { about } from './en/about'
import { common } from './en/common'
import { download } from './en/download'
import { history } from './en/history'
import { inbox } from './en/inbox'
import { login } from './en/login'
import { notes } from './en/notes'
import { requests } from './en/requests'
import { upload } from './en/upload'

/** A message: plain text, or the forms a count selects (`{count}` is filled in). */
export type Message = string | { readonly one: string; readonly other: string }

export const catalogue = {
  ...common,
  ...upload,
  ...download,
  ...history,
  ...login,
  ...notes,
  ...requests,
  ...inbox,
  ...about,
} satisfies Record<string, Message>

export type MessageKey = keyof typeof catalogue
