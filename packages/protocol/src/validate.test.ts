import { describe, expect, it } from 'vitest'
import { toBase64, toBase64Url } from './encoding.js'
import { ProtocolError, type ProtocolErrorCode } from './errors.js'
import {
  decodeBase64,
  decodeBriefCiphertext,
  decodeCanonicalBytes,
  isAllowedRequestUploads,
  isCliCallbackUrl,
  isOneOf,
  isUuid,
  isValidBriefLength,
  parseIntegerStrict,
  requireBoolean,
  requireInteger,
  requireObject,
} from './validate.js'

function expectFailure(run: () => unknown, code: ProtocolErrorCode): ProtocolError {
  let caught: unknown
  try {
    run()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(ProtocolError)
  expect((caught as ProtocolError).code).toBe(code)
  return caught as ProtocolError
}

function bytes(length: number, fill = 0xab): Uint8Array {
  return new Uint8Array(length).fill(fill)
}

describe('isUuid', () => {
  it('accepts lowercase 8-4-4-4-12 hex', () => {
    expect(isUuid('3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f')).toBe(true)
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true)
  })

  it.each([
    ['uppercase', '3F2B1C9E-8D7A-4B6C-9E5F-0A1B2C3D4E5F'],
    ['mixed case', '3f2b1c9e-8d7a-4b6c-9e5f-0a1B2c3d4e5f'],
    ['no hyphens', '3f2b1c9e8d7a4b6c9e5f0a1b2c3d4e5f'],
    ['braces', '{3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f}'],
    ['urn prefix', 'urn:uuid:3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f'],
    ['non-hex digit', '3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5g'],
    ['short group', '3f2b1c9-e8d7a-4b6c-9e5f-0a1b2c3d4e5f'],
    ['extra character', '3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f0'],
    ['trailing newline', '3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f\n'],
    ['leading space', ' 3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f'],
    ['empty', ''],
  ])('refuses %s', (_, value) => {
    expect(isUuid(value)).toBe(false)
  })

  it('refuses non-strings', () => {
    expect(isUuid(undefined)).toBe(false)
    expect(isUuid(42)).toBe(false)
  })
})

describe('parseIntegerStrict', () => {
  it('parses plain digits', () => {
    expect(parseIntegerStrict('0')).toBe(0)
    expect(parseIntegerStrict('7')).toBe(7)
    expect(parseIntegerStrict('1048576')).toBe(1048576)
    expect(parseIntegerStrict('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER)
  })

  it.each([
    ['empty', ''],
    ['plus sign', '+1'],
    ['minus sign', '-1'],
    ['negative zero', '-0'],
    ['leading space', ' 1'],
    ['trailing space', '1 '],
    ['inner space', '1 0'],
    ['leading zero', '01'],
    ['double zero', '00'],
    ['float', '1.5'],
    ['trailing point', '1.'],
    ['exponent', '1e3'],
    ['hex', '0x10'],
    ['separator', '1_000'],
    ['fullwidth digit', '\uff11'],
    ['arabic-indic digit', '\u0661'],
    ['word', 'ten'],
  ])('refuses %s', (_, value) => {
    expectFailure(() => parseIntegerStrict(value), 'BAD_INPUT')
  })

  it('refuses numbers beyond Number.MAX_SAFE_INTEGER', () => {
    expectFailure(() => parseIntegerStrict('9007199254740992'), 'BAD_INPUT')
    expectFailure(() => parseIntegerStrict('99999999999999999999999'), 'BAD_INPUT')
  })

  it('refuses a missing value and non-strings', () => {
    expectFailure(() => parseIntegerStrict(undefined), 'BAD_INPUT')
    expectFailure(() => parseIntegerStrict(null), 'BAD_INPUT')
    expectFailure(() => parseIntegerStrict(5), 'BAD_INPUT')
  })

  it('applies an inclusive range', () => {
    expect(parseIntegerStrict('1', { min: 1, max: 10 })).toBe(1)
    expect(parseIntegerStrict('10', { min: 1, max: 10 })).toBe(10)
    expectFailure(() => parseIntegerStrict('0', { min: 1, max: 10 }), 'BAD_INPUT')
    expectFailure(() => parseIntegerStrict('11', { min: 1, max: 10 }), 'BAD_INPUT')
  })

  it('names the field in the message', () => {
    const error = expectFailure(() => parseIntegerStrict('x', {}, 'X-File-Count'), 'BAD_INPUT')
    expect(error.message).toContain('X-File-Count')
  })
})

describe('requireInteger', () => {
  it('accepts safe integers in range', () => {
    expect(requireInteger(0)).toBe(0)
    expect(requireInteger(86400, { min: 60, max: 604800 })).toBe(86400)
  })

  it.each([
    ['float', 1.5],
    ['string', '5'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['unsafe', 2 ** 53],
    ['boolean', true],
    ['null', null],
    ['undefined', undefined],
  ])('refuses %s', (_, value) => {
    expectFailure(() => requireInteger(value), 'BAD_INPUT')
  })

  it('applies the range', () => {
    expectFailure(() => requireInteger(-1, { min: 0 }), 'BAD_INPUT')
    expectFailure(() => requireInteger(11, { max: 10 }), 'BAD_INPUT')
  })
})

describe('requireBoolean', () => {
  it('accepts JSON booleans only', () => {
    expect(requireBoolean(true)).toBe(true)
    expect(requireBoolean(false)).toBe(false)
    expectFailure(() => requireBoolean('true'), 'BAD_INPUT')
    expectFailure(() => requireBoolean(1), 'BAD_INPUT')
    expectFailure(() => requireBoolean(undefined), 'BAD_INPUT')
  })
})

describe('isOneOf', () => {
  const types = ['text', 'markdown', 'password', 'code', 'sshkey'] as const

  it('accepts a listed value', () => {
    expect(isOneOf('code', types)).toBe(true)
  })

  it('refuses anything else, compared strictly', () => {
    expect(isOneOf('Code', types)).toBe(false)
    expect(isOneOf(5, [1, 5, 10])).toBe(true)
    expect(isOneOf('5', [1, 5, 10])).toBe(false)
  })
})

describe('requireObject', () => {
  it('accepts a plain object with allowed keys', () => {
    expect(requireObject({ a: 1 }, ['a', 'b'])).toEqual({ a: 1 })
    expect(requireObject({ z: 1 })).toEqual({ z: 1 })
  })

  it('refuses non-objects and unknown keys', () => {
    expectFailure(() => requireObject(null), 'BAD_INPUT')
    expectFailure(() => requireObject([]), 'BAD_INPUT')
    expectFailure(() => requireObject('{}'), 'BAD_INPUT')
    expectFailure(() => requireObject({ a: 1, c: 2 }, ['a', 'b']), 'BAD_INPUT')
    expectFailure(() => requireObject(JSON.parse('{"__proto__": {}}'), ['a']), 'BAD_INPUT')
  })
})

describe('decodeBase64', () => {
  it('decodes padded base64 and checks the length', () => {
    expect(decodeBase64(toBase64(bytes(12)), { minBytes: 12, maxBytes: 12 })).toEqual(bytes(12))
    expect(decodeBase64('AA==')).toEqual(new Uint8Array([0]))
    expect(decodeBase64('+/+/')).toEqual(new Uint8Array([0xfb, 0xff, 0xbf]))
  })

  it('refuses wrong lengths and empty values', () => {
    expectFailure(
      () => decodeBase64(toBase64(bytes(11)), { minBytes: 12, maxBytes: 12 }),
      'BAD_INPUT',
    )
    expectFailure(
      () => decodeBase64(toBase64(bytes(13)), { minBytes: 12, maxBytes: 12 }),
      'BAD_INPUT',
    )
    expectFailure(() => decodeBase64(''), 'BAD_INPUT')
    expectFailure(() => decodeBase64('A'.repeat(4000), { maxBytes: 256 }), 'BAD_INPUT')
  })

  it('refuses what is not canonical padded base64', () => {
    expectFailure(() => decodeBase64('AA'), 'BAD_ENCODING')
    expectFailure(() => decodeBase64('-_-_'), 'BAD_ENCODING')
    expectFailure(() => decodeBase64('AA AA==='), 'BAD_ENCODING')
    expectFailure(() => decodeBase64('AB=='), 'BAD_ENCODING')
  })

  it('refuses a missing value', () => {
    expectFailure(() => decodeBase64(undefined), 'BAD_INPUT')
    expectFailure(() => decodeBase64(12), 'BAD_INPUT')
  })
})

describe('decodeCanonicalBytes', () => {
  const token = bytes(32, 0xfe)
  const text = toBase64Url(token)

  it('accepts the one canonical spelling', () => {
    expect(text).toHaveLength(43)
    expect(decodeCanonicalBytes(text, 32)).toEqual(token)
  })

  it.each([
    ['padding', `${text}=`],
    ['standard alphabet', text.replaceAll('-', '+').replaceAll('_', '/')],
    ['leading whitespace', ` ${text}`],
    ['trailing whitespace', `${text}\n`],
    ['one character short', text.slice(0, -1)],
    ['one character long', `${text}A`],
    ['31 bytes', toBase64Url(bytes(31))],
    ['33 bytes', toBase64Url(bytes(33))],
    ['empty', ''],
  ])('refuses %s', (_, value) => {
    expectFailure(() => decodeCanonicalBytes(value, 32), 'BAD_ENCODING')
  })

  it('refuses non-zero trailing bits', () => {
    const zero = toBase64Url(bytes(32, 0))
    expect(zero.endsWith('A')).toBe(true)
    expectFailure(() => decodeCanonicalBytes(`${zero.slice(0, -1)}B`, 32), 'BAD_ENCODING')
  })

  it('refuses a missing value with BAD_INPUT', () => {
    expectFailure(() => decodeCanonicalBytes(undefined, 32), 'BAD_INPUT')
    expectFailure(() => decodeCanonicalBytes(['x'], 32), 'BAD_INPUT')
  })
})

describe('decodeCanonicalBytes of a range', () => {
  it('accepts the ends of the range', () => {
    expect(decodeCanonicalBytes(toBase64Url(bytes(17)), [17, 75000])).toHaveLength(17)
    expect(decodeCanonicalBytes(toBase64Url(bytes(75000)), [17, 75000])).toHaveLength(75000)
  })

  it('refuses lengths outside it and non-canonical spellings', () => {
    expectFailure(() => decodeCanonicalBytes(toBase64Url(bytes(16)), [17, 75000]), 'BAD_ENCODING')
    expectFailure(
      () => decodeCanonicalBytes(toBase64Url(bytes(75001)), [17, 75000]),
      'BAD_ENCODING',
    )
    expectFailure(
      () => decodeCanonicalBytes(`${toBase64Url(bytes(17))}=`, [17, 75000]),
      'BAD_ENCODING',
    )
  })
})

describe('brief ciphertext', () => {
  it.each([
    [1039, false],
    [1040, true],
    [1041, false],
    [2063, false],
    [2064, true],
    [8208, true],
    [8209, false],
    [9232, false],
    [16, false],
    [0, false],
    [1040.5, false],
  ])('isValidBriefLength(%d) is %s', (length, valid) => {
    expect(isValidBriefLength(length)).toBe(valid)
  })

  it('decodeBriefCiphertext accepts whole blocks plus the tag', () => {
    expect(decodeBriefCiphertext(toBase64Url(bytes(1040)))).toHaveLength(1040)
    expect(decodeBriefCiphertext(toBase64Url(bytes(2064)))).toHaveLength(2064)
    expect(decodeBriefCiphertext(toBase64Url(bytes(8208)))).toHaveLength(8208)
  })

  it('decodeBriefCiphertext refuses other lengths', () => {
    expectFailure(() => decodeBriefCiphertext(toBase64Url(bytes(1041))), 'BAD_INPUT')
    expectFailure(() => decodeBriefCiphertext(toBase64Url(bytes(2000))), 'BAD_INPUT')
    expectFailure(() => decodeBriefCiphertext(toBase64Url(bytes(1039))), 'BAD_ENCODING')
    expectFailure(() => decodeBriefCiphertext(toBase64Url(bytes(8209))), 'BAD_ENCODING')
  })
})

describe('isAllowedRequestUploads', () => {
  const options = [1, 5, 10]

  it('accepts an option or twice an option', () => {
    for (const value of [1, 5, 10, 2, 20])
      expect(isAllowedRequestUploads(value, options)).toBe(true)
  })

  it('refuses anything else', () => {
    for (const value of [0, -2, 3, 15, 40, 2.5, '5', null]) {
      expect(isAllowedRequestUploads(value, options)).toBe(false)
    }
  })
})

describe('isCliCallbackUrl', () => {
  it.each(['http://localhost', 'http://localhost:8765/callback', 'http://127.0.0.1:9000/cb?x=1'])(
    'accepts %s',
    (value) => {
      expect(isCliCallbackUrl(value)).toBe(true)
    },
  )

  it.each([
    'https://localhost:8765/callback',
    'http://localhost.example.com/callback',
    'http://localhost.evil.example',
    'https://localhost',
    'http://127.0.0.1@evil.example',
    'http://localhost@example.com/',
    'http://localhost:secret@example.com/',
    'http://127.0.0.1.nip.io/',
    'http://example.com/?http://localhost',
    'http://[::1]:8765/',
    'HTTP://LOCALHOST/',
    'http://localhost:notaport/',
    'javascript:alert(1)',
    '',
  ])('refuses %s', (value) => {
    expect(isCliCallbackUrl(value)).toBe(false)
  })

  it('refuses non-strings', () => {
    expect(isCliCallbackUrl(undefined)).toBe(false)
  })
})
