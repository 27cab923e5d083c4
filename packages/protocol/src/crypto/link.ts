/**
 * Share links of the four kinds: `{base}/d/<id>#…` (file), `/n/` (note), `/r/` (request upload
 * link, for senders) and `/i/` (inbox link, for the requester). The fragment never reaches the
 * server; it is canonical base64url of: a version byte, a flags byte, the 32-byte secret (or, with
 * a password, the protected secret), and for an inbox with a password its 16-byte password salt.
 * (File and note password salts are stored by the server and read before unlocking.)
 */
import { concatBytes, fromBase64Url, toBase64Url } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { SECRET_SIZE } from './keys.js'
import { PASSWORD_SALT_BYTES } from '../wire/limits.js'

export const LINK_FORMAT_VERSION = 1
const FLAG_PASSWORD = 0x01

export type LinkKind = 'file' | 'note' | 'request' | 'inbox'

export const LINK_PATH_SEGMENTS: Readonly<Record<LinkKind, string>> = {
  file: 'd',
  note: 'n',
  request: 'r',
  inbox: 'i',
}

export interface FileLink {
  kind: 'file' | 'note'
  id: string
  /** The secret, or the protected secret when `hasPassword`. */
  secret: Uint8Array
  hasPassword: boolean
}

export interface RequestLink {
  kind: 'request'
  id: string
  /** The upload link secret. */
  secret: Uint8Array
}

export interface InboxLink {
  kind: 'inbox'
  id: string
  /** The inbox link secret, or the protected one when `passwordSalt` is set. */
  secret: Uint8Array
  /** Present when the inbox link is protected with `argon2id-v2`. */
  passwordSalt?: Uint8Array
}

export type ShareLink = FileLink | RequestLink | InboxLink

export interface ParsedLink {
  /** The service's base address (origin plus any path prefix), without a trailing slash. */
  baseUrl: string
  link: ShareLink
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function badLink(reason: string): ProtocolError {
  return new ProtocolError('BAD_LINK', `Invalid link: ${reason}`)
}

function fragmentOf(link: ShareLink): Uint8Array {
  if (link.secret.length !== SECRET_SIZE) {
    throw new ProtocolError('BAD_INPUT', `A link secret must be ${SECRET_SIZE} bytes`)
  }
  let flags = 0
  let extra: Uint8Array = new Uint8Array(0)
  if (link.kind === 'inbox' && link.passwordSalt) {
    if (link.passwordSalt.length !== PASSWORD_SALT_BYTES) {
      throw new ProtocolError('BAD_INPUT', `A password salt must be ${PASSWORD_SALT_BYTES} bytes`)
    }
    flags |= FLAG_PASSWORD
    extra = link.passwordSalt
  } else if ((link.kind === 'file' || link.kind === 'note') && link.hasPassword) {
    flags |= FLAG_PASSWORD
  }
  return concatBytes(new Uint8Array([LINK_FORMAT_VERSION, flags]), link.secret, extra)
}

/** Builds the share link of `link` under the service's base address. */
export function buildLink(baseUrl: string, link: ShareLink): string {
  if (!UUID.test(link.id)) throw new ProtocolError('BAD_INPUT', 'A link id must be a UUID')
  const base = baseUrl.replace(/\/+$/, '')
  return `${base}/${LINK_PATH_SEGMENTS[link.kind]}/${link.id}#${toBase64Url(fragmentOf(link))}`
}

/**
 * What a chat or a mail puts before a link (`<`, `(`, quotes) and after it (`.`, `)`, `>`,
 * quotes, or their percent-escapes, as `%20` for a space a browser kept). None of it can be
 * part of a key, whose characters are base64url, so it is dropped before parsing; `=` stays, so
 * that a padded key is still refused as any other spelling of it.
 */
const LEADING_PUNCTUATION = /^[\s<([{"'«“‘]+/u
const TRAILING_PUNCTUATION = /(?:%[0-9A-Fa-f]{2}|[\s.,;:!?)\]}>"'»”’…])+$/u

/** `text` without the punctuation around a link that chats and mails add. */
export function trimLinkText(text: string): string {
  return text.replace(LEADING_PUNCTUATION, '').replace(TRAILING_PUNCTUATION, '')
}

/**
 * Parses a share link, taking it out of the punctuation around it (`trimLinkText`); a malformed
 * one fails with `BAD_LINK` and a message saying what is wrong.
 */
export function parseLink(text: string): ParsedLink {
  let url: URL
  try {
    url = new URL(trimLinkText(text))
  } catch {
    throw badLink('not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badLink('not an http(s) address')
  const match = /^(.*)\/([dnri])\/([^/]+)\/?$/.exec(url.pathname)
  if (!match) throw badLink('the path is not /d/, /n/, /r/ or /i/ followed by an id')
  const [, prefix = '', segment, id = ''] = match
  const kind = (Object.keys(LINK_PATH_SEGMENTS) as LinkKind[]).find(
    (k) => LINK_PATH_SEGMENTS[k] === segment,
  )!
  if (!UUID.test(id)) throw badLink('the id is not a UUID')
  const fragment = url.hash.slice(1)
  if (fragment.length === 0) throw badLink('the key (the part after #) is missing')

  const baseUrl = `${url.origin}${prefix}`
  const withSalt = kind === 'inbox'
  let bytes: Uint8Array
  const plainLength = 2 + SECRET_SIZE
  const saltedLength = plainLength + PASSWORD_SALT_BYTES
  try {
    bytes = fromBase64Url(fragment, { canonical: true, bytes: plainLength })
  } catch {
    if (!withSalt) throw badLink('the key is damaged or incomplete')
    try {
      bytes = fromBase64Url(fragment, { canonical: true, bytes: saltedLength })
    } catch {
      throw badLink('the key is damaged or incomplete')
    }
  }
  if (bytes[0] !== LINK_FORMAT_VERSION) {
    throw new ProtocolError('UNSUPPORTED_VERSION', 'This link was made by a newer version')
  }
  const flags = bytes[1]!
  if ((flags & ~FLAG_PASSWORD) !== 0) throw badLink('unknown flags')
  const hasPassword = (flags & FLAG_PASSWORD) !== 0
  const secret = bytes.slice(2, 2 + SECRET_SIZE)

  if (kind === 'inbox') {
    if (hasPassword !== (bytes.length === saltedLength)) throw badLink('the key is damaged')
    const link: InboxLink = { kind, id, secret }
    if (hasPassword) link.passwordSalt = bytes.slice(plainLength)
    return { baseUrl, link }
  }
  if (kind === 'request') {
    if (hasPassword) throw badLink('unknown flags')
    return { baseUrl, link: { kind, id, secret } }
  }
  return { baseUrl, link: { kind, id, secret, hasPassword } }
}
