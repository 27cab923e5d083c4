import { randomBytes } from 'node:crypto'

import { decodeBase64, type ByteRange } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { decodeBase64Strict } from './base64.js'

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Characters that base64 text is made of, and those a sloppy or hostile sender might add. */
const CHARACTERS = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  ...'=-_ \n\t.%é\u0000\u00ff\u{1f600}',
]

function protocolDecode(value: unknown, range: ByteRange): Uint8Array | null {
  try {
    return decodeBase64(value, range)
  } catch {
    return null
  }
}

/** Valid base64 of random bytes, then sometimes broken in one of the ways the decoders differ. */
function candidate(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const length = random() < 0.9 ? Math.floor(random() * 20) : Math.floor(random() * 300)
  let text = Buffer.from(Array.from({ length }, () => Math.floor(random() * 256))).toString(
    'base64',
  )
  const mutations = Math.floor(random() * 3)
  for (let i = 0; i < mutations; i++) {
    const at = Math.floor(random() * (text.length + 1))
    switch (Math.floor(random() * 6)) {
      case 0:
        text = text.slice(0, at) + pick(CHARACTERS) + text.slice(at + 1)
        break
      case 1:
        text = text.slice(0, at) + pick(CHARACTERS) + text.slice(at)
        break
      case 2:
        text = text.slice(0, at) + text.slice(at + 1)
        break
      case 3:
        text = text.replace(/=+$/, '')
        break
      case 4:
        text += '='
        break
      default: {
        // Another character in the last data position changes only the trailing bits at times.
        const last = text.replace(/=+$/, '').length - 1
        if (last >= 0) text = text.slice(0, last) + pick(CHARACTERS) + text.slice(last + 1)
      }
    }
  }
  return text
}

const RANGES: ByteRange[] = [
  {},
  { minBytes: 0 },
  { minBytes: 12, maxBytes: 12 },
  { minBytes: 1, maxBytes: 16 },
]

describe('decodeBase64Strict', () => {
  it('accepts exactly what the protocol decoder accepts, with the same bytes', () => {
    const random = generator(20260101)
    let accepted = 0
    const disagreements: string[] = []
    for (let i = 0; i < 5_000; i++) {
      const text = candidate(random)
      for (const range of RANGES) {
        const expected = protocolDecode(text, range)
        const actual = decodeBase64Strict(text, range)
        if (expected !== null) accepted++
        const agree =
          expected === null ? actual === null : actual?.equals(Buffer.from(expected)) === true
        if (!agree) disagreements.push(`${JSON.stringify(text)} ${JSON.stringify(range)}`)
      }
    }
    expect(disagreements).toEqual([])
    // Both outcomes were exercised in earnest.
    expect(accepted).toBeGreaterThan(2_500)
    expect(accepted).toBeLessThan(17_500)
  }, 30_000)

  it('decodes large canonical input and refuses it once one character is off', () => {
    const bytes = randomBytes(1024 * 1024 + 1)
    const text = bytes.toString('base64')
    expect(decodeBase64Strict(text, { maxBytes: bytes.length })?.equals(bytes)).toBe(true)
    expect(decodeBase64Strict(text, { maxBytes: bytes.length - 1 })).toBeNull()
    expect(decodeBase64Strict(`${text.slice(0, 1000)}-${text.slice(1001)}`)).toBeNull()
    expect(decodeBase64Strict(`${text.slice(0, 1000)}\n${text.slice(1000)}`)).toBeNull()
  })

  it('refuses what is not a string, like the protocol decoder', () => {
    for (const value of [undefined, null, 12, {}, ['QQ=='], new Uint8Array(3)]) {
      expect(decodeBase64Strict(value)).toBeNull()
      expect(protocolDecode(value, {})).toBeNull()
    }
  })

  it('refuses the spellings the lenient native decoder takes', () => {
    // "QQ==" is the one spelling of the byte 0x41.
    for (const text of ['QQ', 'QQ=', 'QR==', 'Q Q==', 'QQ==\n', 'QQ===', '-_8=', 'QQ==QQ==']) {
      expect(decodeBase64Strict(text), text).toBeNull()
      expect(protocolDecode(text, {}), text).toBeNull()
    }
    expect(decodeBase64Strict('QQ==')).toEqual(Buffer.from([0x41]))
  })
})
