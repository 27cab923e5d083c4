import { describe, expect, it } from 'vitest'
import { toBase64Url } from '../encoding.js'
import { buildLink, parseLink } from './link.js'

const ID = '6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51'
const secret = new Uint8Array(32).map((_, i) => i)
const salt = new Uint8Array(16).fill(9)

describe('links', () => {
  it('builds and parses each kind, keeping a base path', () => {
    const cases = [
      { kind: 'file', id: ID, secret, hasPassword: false },
      { kind: 'note', id: ID, secret, hasPassword: true },
      { kind: 'request', id: ID, secret },
      { kind: 'inbox', id: ID, secret },
      { kind: 'inbox', id: ID, secret, passwordSalt: salt },
    ] as const
    const segments = { file: 'd', note: 'n', request: 'r', inbox: 'i' }
    for (const link of cases) {
      const text = buildLink('https://share.example/sub/', link)
      expect(text.startsWith(`https://share.example/sub/${segments[link.kind]}/${ID}#`)).toBe(true)
      const parsed = parseLink(text)
      expect(parsed.baseUrl).toBe('https://share.example/sub')
      expect(parsed.link).toEqual(link)
    }
  })

  it('starts the fragment with the version byte', () => {
    const text = buildLink('http://localhost:3000', {
      kind: 'file',
      id: ID,
      secret,
      hasPassword: false,
    })
    expect(text.split('#')[1]).toBe(toBase64Url(new Uint8Array([1, 0, ...secret])))
  })

  it('refuses malformed links with a clear message', () => {
    const good = buildLink('http://localhost:3000', {
      kind: 'file',
      id: ID,
      secret,
      hasPassword: false,
    })
    const fragment = good.split('#')[1]!
    const bad: Array<[string, RegExp]> = [
      ['not a link', /not a URL/],
      [`ftp://host/d/${ID}#${fragment}`, /http/],
      [`http://host/x/${ID}#${fragment}`, /path/],
      [`http://host/d/not-a-uuid#${fragment}`, /UUID/],
      [`http://host/d/${ID}`, /missing/],
      [`http://host/d/${ID}#${fragment.slice(0, -1)}`, /damaged/],
      [`http://host/d/${ID}#${fragment}=`, /damaged/],
      [`http://host/d/${ID}#${toBase64Url(new Uint8Array([1, 4, ...secret]))}`, /flags/],
      [`http://host/r/${ID}#${toBase64Url(new Uint8Array([1, 1, ...secret]))}`, /flags/],
      [`http://host/i/${ID}#${toBase64Url(new Uint8Array([1, 1, ...secret]))}`, /damaged/],
    ]
    for (const [text, message] of bad) {
      expect(() => parseLink(text), text).toThrow(message)
      try {
        parseLink(text)
      } catch (error) {
        expect((error as { code: string }).code).toBe('BAD_LINK')
      }
    }
  })

  it('takes a link out of the punctuation a chat or a mail puts around it', () => {
    const link = { kind: 'inbox', id: ID, secret, passwordSalt: salt } as const
    const text = buildLink('https://share.example', link)
    const around = [
      `${text}.`,
      `${text})`,
      `${text}>`,
      `${text}%20`,
      `${text}).`,
      `${text}%3E`,
      `${text}",`,
      `${text}…`,
      `<${text}>`,
      `(${text}).`,
      ` ${text} \n`,
    ]
    for (const variant of around) expect(parseLink(variant).link, variant).toEqual(link)
    // What is left must still be a whole key.
    expect(() => parseLink(`${text.slice(0, -1)}.`)).toThrow(/damaged/)
    expect(() => parseLink(`${text}x.`)).toThrow(/damaged/)
  })

  it('refuses a newer format version', () => {
    const text = `http://host/d/${ID}#${toBase64Url(new Uint8Array([2, 0, ...secret]))}`
    expect(() => parseLink(text)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_VERSION' }))
  })
})
