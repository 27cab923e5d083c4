/** Share links given on the command line, checked for the kind a command expects. */
import { parseLink, type FileLink, type InboxLink, type RequestLink } from '@fileshare/protocol'

import { UsageError } from './errors.js'

type Kind = 'file' | 'note' | 'request' | 'inbox'

const COMMAND_FOR: Readonly<Record<Kind, string>> = {
  file: 'fileshare get <link>',
  note: 'fileshare note get <link>',
  request: 'fileshare request send <upload-link> <paths...>',
  inbox: 'fileshare inbox <inbox-link>',
}

const NAME_OF: Readonly<Record<Kind, string>> = {
  file: 'a file link (/d/…)',
  note: 'a note link (/n/…)',
  request: 'an upload link of a file request (/r/…)',
  inbox: 'an inbox link (/i/…)',
}

function parse(text: string, kind: Kind) {
  let parsed
  try {
    parsed = parseLink(text)
  } catch (cause) {
    throw new UsageError((cause as Error).message, { cause })
  }
  if (parsed.link.kind !== kind) {
    throw new UsageError(
      `This is ${NAME_OF[parsed.link.kind]}, not ${NAME_OF[kind]}; use ${COMMAND_FOR[parsed.link.kind]}`,
    )
  }
  return parsed
}

export function parseFileLink(text: string): { baseUrl: string; link: FileLink } {
  const { baseUrl, link } = parse(text, 'file')
  return { baseUrl, link: link as FileLink }
}

export function parseNoteLink(text: string): { baseUrl: string; link: FileLink } {
  const { baseUrl, link } = parse(text, 'note')
  return { baseUrl, link: link as FileLink }
}

export function parseRequestLink(text: string): { baseUrl: string; link: RequestLink } {
  const { baseUrl, link } = parse(text, 'request')
  return { baseUrl, link: link as RequestLink }
}

export function parseInboxLink(text: string): { baseUrl: string; link: InboxLink } {
  const { baseUrl, link } = parse(text, 'inbox')
  return { baseUrl, link: link as InboxLink }
}
