import { describe, expect, it } from 'vitest'

import { decodeQr, modulesOf } from '../../test/qr-image.js'
import { qrLines, qrMatrix } from './qr.js'

const LINK =
  'https://share.example.org/d/9ec7af88-27b8-4fba-a4be-27c65bdc631e#AQDnyOqb-dogi--b5uwJpesU2vj-j35Q8kMtQFn0c4MvgQ'

describe('QR codes in the terminal', () => {
  it('draws every module, two rows per line, with a light quiet zone', () => {
    const matrix = qrMatrix(LINK)
    const lines = qrLines(LINK, false)
    expect(lines).toHaveLength(Math.ceil(matrix.length / 2))
    // An odd number of rows: the last line's lower half is light.
    expect(modulesOf(lines).slice(0, matrix.length)).toEqual(matrix)
    expect(matrix[0]!.every((dark) => !dark)).toBe(true)
    expect(matrix[2]![2]).toBe(true)
  })

  it('reads back as the link, plain and in colour', () => {
    expect(decodeQr(qrLines(LINK, false))).toBe(LINK)
    const coloured = qrLines(LINK, true)
    expect(
      coloured.every((line) => line.startsWith('\x1b[30;107m') && line.endsWith('\x1b[0m')),
    ).toBe(true)
    expect(decodeQr(coloured)).toBe(LINK)
  })
})
