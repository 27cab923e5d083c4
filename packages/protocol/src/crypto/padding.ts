/**
 * Length-hiding padding (ISO/IEC 7816-4): a 0x80 byte, then zeros up to a whole block. It is
 * applied inside the AEAD, so its removal only ever sees authenticated bytes.
 */
import { decryptFailed } from '../errors.js'

/** Pads `data` to the smallest multiple of `block` that holds it plus the 0x80 marker. */
export function pad(data: Uint8Array, block: number, minBlocks = 1): Uint8Array {
  const blocks = Math.max(minBlocks, Math.ceil((data.length + 1) / block))
  const out = new Uint8Array(blocks * block)
  out.set(data)
  out[data.length] = 0x80
  return out
}

/** Removes the padding; a block that is not padded this way fails like any corrupt ciphertext. */
export function unpad(padded: Uint8Array, block: number): Uint8Array {
  if (padded.length === 0 || padded.length % block !== 0) throw decryptFailed()
  let end = padded.length - 1
  while (end >= 0 && padded[end] === 0) end--
  if (end < 0 || padded[end] !== 0x80) throw decryptFailed()
  return padded.subarray(0, end)
}
