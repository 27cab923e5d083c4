import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromBase64, fromBase64Url, fromUtf8, toBase64, toBase64Url } from './encoding.js'
import { ProtocolError } from './errors.js'

function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length)
  globalThis.crypto.getRandomValues(out)
  return out
}

function expectBadEncoding(fn: () => unknown): void {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError)
    expect((error as ProtocolError).code).toBe('BAD_ENCODING')
    return
  }
  throw new Error('expected a BAD_ENCODING error')
}

/** Every other spelling of the same bytes that a lax decoder would accept. */
function nonCanonicalSpellings(bytes: Uint8Array): string[] {
  const canonical = toBase64Url(bytes)
  const out: string[] = []
  const padded = canonical + '='.repeat((4 - (canonical.length % 4)) % 4)
  if (padded !== canonical) out.push(padded)
  out.push(canonical + '=')
  out.push(' ' + canonical, canonical + '\n', canonical.slice(0, 1) + ' ' + canonical.slice(1))
  const standard = toBase64(bytes).replace(/=+$/, '')
  if (standard !== canonical) out.push(standard)
  // Same bytes with non-zero unused trailing bits in the last character.
  const rest = bytes.length % 3
  if (rest !== 0) {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = alphabet.indexOf(canonical[canonical.length - 1]!)
    const unused = rest === 1 ? 15 : 3
    for (let bits = 1; bits <= unused; bits++) {
      out.push(canonical.slice(0, -1) + alphabet[last | bits]!)
    }
  }
  return out
}

describe('base64url, canonical and exact length', () => {
  it('decodes what it encodes for every length from 0 to 300', () => {
    for (let length = 0; length <= 300; length++) {
      const bytes = randomBytes(length)
      const text = toBase64Url(bytes)
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/)
      expect(text.length).toBe(Math.ceil((length * 4) / 3))
      expect(fromBase64Url(text, { canonical: true, bytes: length })).toEqual(bytes)
      expect(fromBase64Url(text)).toEqual(bytes)
    }
  })

  it('refuses every non-canonical spelling of the same bytes, for every length from 0 to 300', () => {
    for (let length = 0; length <= 300; length++) {
      const bytes = randomBytes(length)
      for (const spelling of nonCanonicalSpellings(bytes)) {
        expectBadEncoding(() => fromBase64Url(spelling, { canonical: true, bytes: length }))
      }
    }
  })

  it('refuses a canonical spelling of another length', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 300 }),
        (bytes, other) => {
          fc.pre(other !== bytes.length)
          expectBadEncoding(() =>
            fromBase64Url(toBase64Url(bytes), { canonical: true, bytes: other }),
          )
        },
      ),
    )
  })

  it('refuses characters outside the alphabet wherever they stand', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.constantFrom('+', '/', '=', '.', '*', 'é', '\u0000', '%'),
        fc.nat(),
        (bytes, bad, at) => {
          const text = toBase64Url(bytes)
          const i = at % text.length
          const mangled = text.slice(0, i) + bad + text.slice(i + 1)
          expectBadEncoding(() => fromBase64Url(mangled, { canonical: true, bytes: bytes.length }))
        },
      ),
    )
  })

  it('accepts a range of lengths and nothing outside it', () => {
    const bytes = randomBytes(40)
    expect(fromBase64Url(toBase64Url(bytes), { canonical: true, bytes: [17, 75000] })).toEqual(
      bytes,
    )
    expectBadEncoding(() =>
      fromBase64Url(toBase64Url(randomBytes(16)), { canonical: true, bytes: [17, 75000] }),
    )
    expectBadEncoding(() =>
      fromBase64Url(toBase64Url(bytes) + '=', { canonical: true, bytes: [17, 75000] }),
    )
  })

  it('refuses the impossible length 1 mod 4', () => {
    expectBadEncoding(() => fromBase64Url('A'))
    expectBadEncoding(() => fromBase64Url('AAAAA'))
  })
})

describe('lax base64url of the file and note routes', () => {
  it('accepts the padded and unpadded spelling', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = toBase64Url(bytes)
        expect(fromBase64Url(text)).toEqual(bytes)
        const padded = text + '='.repeat((4 - (text.length % 4)) % 4)
        expect(fromBase64Url(padded)).toEqual(bytes)
      }),
    )
  })

  it('still refuses the standard alphabet and wrong padding', () => {
    expectBadEncoding(() => fromBase64Url('ab+/'))
    expectBadEncoding(() => fromBase64Url('AA='))
    expectBadEncoding(() => fromBase64Url('AA==='))
    expectBadEncoding(() => fromBase64Url('AAAA===='))
  })
})

describe('base64', () => {
  it('matches the reference encoder and round-trips', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = toBase64(bytes)
        expect(text).toBe(Buffer.from(bytes).toString('base64'))
        expect(fromBase64(text)).toEqual(bytes)
      }),
    )
  })

  it('requires padding and refuses the url alphabet', () => {
    expectBadEncoding(() => fromBase64('AA'))
    expectBadEncoding(() => fromBase64('-_-_'))
    expectBadEncoding(() => fromBase64('AB=='))
  })
})

describe('base64url as the file and note routes take it', () => {
  it('takes a salt padded or not, of a length within the bounds', () => {
    const salt = randomBytes(16)
    expect(fromBase64Url(toBase64Url(salt), { bytes: [16, 32] })).toEqual(salt)
    expect(fromBase64Url(`${toBase64Url(salt)}==`, { bytes: [16, 32] })).toEqual(salt)
    expectBadEncoding(() => fromBase64Url(toBase64Url(randomBytes(15)), { bytes: [16, 32] }))
    expectBadEncoding(() => fromBase64Url(toBase64Url(randomBytes(33)), { bytes: [16, 32] }))
    expectBadEncoding(() => fromBase64Url('', { bytes: [16, 32] }))
  })

  it('refuses the standard alphabet, whitespace and non-zero trailing bits', () => {
    const salt = toBase64Url(new Uint8Array(16).fill(0xfb))
    expect(salt).toContain('-')
    expectBadEncoding(() => fromBase64Url(salt.replaceAll('-', '+')))
    expectBadEncoding(() => fromBase64Url(` ${salt}`))
    const zero = toBase64Url(new Uint8Array(16))
    expectBadEncoding(() => fromBase64Url(`${zero.slice(0, -1)}B`))
  })
})

describe('helpers', () => {
  it('refuses malformed UTF-8', () => {
    expectBadEncoding(() => fromUtf8(new Uint8Array([0xc3, 0x28])))
    expect(fromUtf8(new Uint8Array([0xc3, 0xa9]))).toBe('é')
  })
})
