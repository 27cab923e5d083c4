/**
 * A link as a QR code in a terminal, for a phone to open: two rows of modules per line drawn with
 * half blocks, and a quiet zone of two modules around them. With colours, the dark modules are
 * black on white whatever the terminal's own colours, since many scanners do not read a code
 * drawn light on dark; without, the blocks are the dark modules.
 */
import qrcode from 'qrcode-generator'

/** Light modules around the code; the standard asks for four, scanners take two on a screen. */
const QUIET = 2
const BLACK_ON_WHITE = '\x1b[30;107m'
const RESET = '\x1b[0m'

/** The code's modules, quiet zone included, `true` for dark; error correction level M. */
export function qrMatrix(value: string): boolean[][] {
  const qr = qrcode(0, 'M')
  qr.addData(value, 'Byte')
  qr.make()
  const count = qr.getModuleCount()
  const size = count + 2 * QUIET
  const dark = (row: number, col: number) =>
    row >= 0 && row < count && col >= 0 && col < count && qr.isDark(row, col)
  return Array.from({ length: size }, (_, row) =>
    Array.from({ length: size }, (_, col) => dark(row - QUIET, col - QUIET)),
  )
}

/** The lines that draw `value`'s code. */
export function qrLines(value: string, colour: boolean): string[] {
  const matrix = qrMatrix(value)
  const lines: string[] = []
  for (let row = 0; row < matrix.length; row += 2) {
    const top = matrix[row]!
    const bottom = matrix[row + 1] ?? top.map(() => false)
    const cells = top.map((upper, col) => {
      const lower = bottom[col]!
      if (upper && lower) return '█'
      if (upper) return '▀'
      return lower ? '▄' : ' '
    })
    lines.push(colour ? `${BLACK_ON_WHITE}${cells.join('')}${RESET}` : cells.join(''))
  }
  return lines
}
