/**
 * Looks up user-facing text in the message catalogue. Keys are typed, so a missing key is a
 * compile error; `{name}` placeholders are filled from `params`, and a message with `one`/`other`
 * forms picks one by `params.count`.
 */
import { catalogue, type MessageKey, type Message } from './messages'

export type { MessageKey }

export type MessageParams = Readonly<Record<string, string | number>>

const PLACEHOLDER = /\{(\w+)\}/g

/** English plural rule; a translation brings its own by replacing `pluralForm`. */
function pluralForm(count: number): 'one' | 'other' {
  return count === 1 ? 'one' : 'other'
}

export function format(message: Message, params?: MessageParams): string {
  let text: string
  if (typeof message === 'string') {
    text = message
  } else {
    const count = params?.count
    text = message[pluralForm(typeof count === 'number' ? count : Number(count))]
  }
  if (!params) return text
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  )
}

export function t(key: MessageKey, params?: MessageParams): string {
  return format(catalogue[key], params)
}
