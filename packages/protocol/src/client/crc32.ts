/**
 * CRC-32 (ISO-HDLC, the polynomial of ZIP, gzip and PNG: reflected 0xEDB88320), table-driven
 * with slicing-by-8 (eight bytes per step through eight 256-entry tables) so archives are
 * checksummed while they stream at several hundred MB/s.
 */

/** Table k, entry x: the CRC register after byte x followed by k zero bytes. */
const TABLES = (() => {
  const tables = new Int32Array(8 * 256)
  for (let x = 0; x < 256; x++) {
    let c = x
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    tables[x] = c
  }
  for (let x = 0; x < 256; x++) {
    let c = tables[x]!
    for (let k = 1; k < 8; k++) {
      c = tables[c & 0xff]! ^ (c >>> 8)
      tables[k * 256 + x] = c
    }
  }
  return tables
})()

/** Whole 32-bit words are read through an Int32Array, which matches the byte order only here. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/** CRC-32 of `data`, continuing from `crc` (the value of the bytes before it; 0 to start). */
export function crc32(data: Uint8Array, crc = 0): number {
  return ~(LITTLE_ENDIAN ? updateWords(data, ~crc) : updateBytes(data, ~crc)) >>> 0
}

/** Bytes up to a 4-byte boundary one at a time, then two aligned words per step. */
function updateWords(data: Uint8Array, register: number): number {
  const t = TABLES
  let c = register
  let i = 0
  while (i < data.length && ((data.byteOffset + i) & 3) !== 0) {
    c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
    i++
  }
  if (data.length - i < 8) return tail(data, i, c)
  const words = new Int32Array(data.buffer, data.byteOffset + i, (data.length - i) >>> 2)
  const pairs = words.length & ~1
  for (let w = 0; w < pairs; w += 2) {
    const a = c ^ words[w]!
    const b = words[w + 1]!
    c =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + (b & 0xff)]! ^
      t[512 + ((b >>> 8) & 0xff)]! ^
      t[256 + ((b >>> 16) & 0xff)]! ^
      t[b >>> 24]!
  }
  return tail(data, i + pairs * 4, c)
}

/** The same eight bytes per step, assembled from bytes (big-endian machines). */
function updateBytes(data: Uint8Array, register: number): number {
  const t = TABLES
  let c = register
  let i = 0
  for (const end8 = data.length - 7; i < end8; i += 8) {
    const a = c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))
    c =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + data[i + 4]!]! ^
      t[512 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!
  }
  return tail(data, i, c)
}

function tail(data: Uint8Array, from: number, register: number): number {
  const t = TABLES
  let c = register
  for (let i = from; i < data.length; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
  return c
}
