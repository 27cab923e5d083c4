/** Reading a QR code the command drew in a terminal back, as a phone's camera would. */
import jsQR from 'jsqr'

// The package is CommonJS: its function is both the module and its `default`.
const decode = jsQR.default

const ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')
/** Pixels per module in the image given to the decoder. */
const SCALE = 4

/** The modules drawn by half-block lines (escapes removed), `true` for dark. */
export function modulesOf(lines: string[]): boolean[][] {
  const rows: boolean[][] = []
  for (const line of lines) {
    const cells = [...line.replace(ESCAPE, '')]
    rows.push(cells.map((cell) => cell === '█' || cell === '▀'))
    rows.push(cells.map((cell) => cell === '█' || cell === '▄'))
  }
  return rows
}

/** What a decoder reads from the code, or null. */
export function decodeQr(lines: string[]): string | null {
  const modules = modulesOf(lines)
  const width = modules[0]!.length * SCALE
  const height = modules.length * SCALE
  const pixels = new Uint8ClampedArray(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = modules[Math.floor(y / SCALE)]![Math.floor(x / SCALE)] ? 0 : 255
      pixels.set([value, value, value, 255], (y * width + x) * 4)
    }
  }
  return decode(pixels, width, height)?.data ?? null
}
