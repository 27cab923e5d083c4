import { describe, expect, it } from 'vitest'

import { escapeControls, maskControls } from './terminal-text.js'

describe('text printed on a terminal', () => {
  // Security: no sender's text can drive the terminal it is printed on, nor reorder its line.
  it('escapes C0, DEL, C1 and bidirectional controls and keeps lines and tabs', () => {
    expect(escapeControls('a\u001b]52;c;eA==\u0007b')).toBe('a\\x1b]52;c;eA==\\x07b')
    expect(escapeControls('csi\u009b2Jand osc\u009d0;x\u009c')).toBe(
      'csi\\x9b2Jand osc\\x9d0;x\\x9c',
    )
    expect(escapeControls('file\u202egnp.exe \u2066x\u2069 \u202a\u202b\u202c\u202d')).toBe(
      'file\\u202egnp.exe \\u2066x\\u2069 \\u202a\\u202b\\u202c\\u202d',
    )
    expect(escapeControls('one\ntwo\tthree\r\nfour\rfive\u007f')).toBe(
      'one\ntwo\tthree\r\nfour\\x0dfive\\x7f',
    )
    expect(escapeControls('שלום \u200f world ünïcödé')).toBe('שלום \u200f world ünïcödé')
  })

  it('puts everything on one line when asked', () => {
    expect(escapeControls('one\ntwo\tthree\r\n\u009b\u202e', { oneLine: true })).toBe(
      'one\\x0atwo\\x09three\\x0d\\x0a\\x9b\\u202e',
    )
  })

  it('masks the same characters in a name', () => {
    expect(maskControls('a\nb\u009bc\u202ed\u2067e.txt')).toBe('a?b?c?d?e.txt')
  })
})
