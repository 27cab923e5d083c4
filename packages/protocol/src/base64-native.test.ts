/**
 * `fromBase64` decodes with Node's native codec where there is one and with its own loop in a
 * browser: both must accept exactly the same text, with the same bytes.
 */
import { randomBytes } from 'node:crypto'

import { describe, expect, it } from 'vitest'

import { fromBase64 } from './encoding.js'

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

type Decoded = Uint8Array | string

/** The bytes, or the refusal's message. */
function outcome(text: string): Decoded {
  try {
    return fromBase64(text)
  } catch (error) {
    return (error as Error).message
  }
}

/** As a browser decodes: without Node's `Buffer`, so through the loop. */
function loopOutcome(text: string): Decoded {
  const saved = globalThis.Buffer
  ;(globalThis as { Buffer?: unknown }).Buffer = undefined
  try {
    return outcome(text)
  } finally {
    globalThis.Buffer = saved
  }
}

function same(a: Decoded, b: Decoded): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b
  return Buffer.from(a).equals(Buffer.from(b))
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

describe('fromBase64 with and without the native codec', () => {
  it('accepts exactly the same text, with the same bytes, and refuses it the same way', () => {
    const random = generator(20260101)
    let accepted = 0
    const disagreements: string[] = []
    for (let i = 0; i < 5_000; i++) {
      const text = candidate(random)
      const native = outcome(text)
      if (typeof native !== 'string') accepted++
      if (!same(native, loopOutcome(text))) disagreements.push(JSON.stringify(text))
    }
    expect(disagreements).toEqual([])
    // Both outcomes were exercised in earnest.
    expect(accepted).toBeGreaterThan(500)
    expect(accepted).toBeLessThan(4_500)
  }, 30_000)

  it('decodes large canonical input into bytes of its own, and refuses it once one character is off', () => {
    const bytes = randomBytes(1024 * 1024 + 1)
    const text = bytes.toString('base64')
    const decoded = fromBase64(text)
    expect(Buffer.from(decoded).equals(bytes)).toBe(true)
    expect(decoded.byteOffset === 0 && decoded.byteLength === decoded.buffer.byteLength).toBe(true)
    expect(() => fromBase64(`${text.slice(0, 1000)}-${text.slice(1001)}`)).toThrow()
    expect(() => fromBase64(`${text.slice(0, 1000)}\n${text.slice(1000)}`)).toThrow()
  })

  it('answers small input in bytes of its own too, never a view of a shared pool', () => {
    const decoded = fromBase64('QUJD')
    expect(Array.from(decoded)).toEqual([0x41, 0x42, 0x43])
    expect(decoded.buffer.byteLength).toBe(3)
  })

  it('refuses the spellings the lenient native decoder takes', () => {
    // "QQ==" is the one spelling of the byte 0x41.
    for (const text of ['QQ', 'QQ=', 'QR==', 'Q Q==', 'QQ==\n', 'QQ===', '-_8=', 'QQ==QQ==']) {
      expect(() => fromBase64(text), text).toThrow(/Invalid encoding/)
    }
    expect(Array.from(fromBase64('QQ=='))).toEqual([0x41])
  })
})
