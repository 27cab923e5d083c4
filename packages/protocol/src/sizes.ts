/**
 * Sizes of the streamed payload format, shared by the server (which is told the ciphertext size
 * before an upload) and every client. See docs/crypto.md, "Payload".
 */
import { ProtocolError } from './errors.js'

/** Plaintext bytes per record. Chosen with `pnpm bench:crypto`; docs/crypto.md says why. */
export const RECORD_SIZE = 1024 * 1024
/** Bytes the AES-GCM tag adds to each record. */
export const RECORD_TAG_SIZE = 16

/** Number of records of a payload: the last one is short or, for an empty payload, empty. */
export function recordCount(plainSize: number, recordSize = RECORD_SIZE): number {
  checkSize(plainSize)
  return plainSize === 0 ? 1 : Math.ceil(plainSize / recordSize)
}

/** The exact ciphertext length of a payload of `plainSize` bytes. */
export function encryptedSize(plainSize: number, recordSize = RECORD_SIZE): number {
  return plainSize + RECORD_TAG_SIZE * recordCount(plainSize, recordSize)
}

/**
 * The plaintext length of a ciphertext of `cipherSize` bytes; throws for a length that no
 * payload encrypts to.
 */
export function plainSize(cipherSize: number, recordSize = RECORD_SIZE): number {
  checkSize(cipherSize)
  const fullRecord = recordSize + RECORD_TAG_SIZE
  const full = Math.floor(cipherSize / fullRecord)
  const rest = cipherSize - full * fullRecord
  if (rest === 0 && full > 0) return full * recordSize
  if (rest < RECORD_TAG_SIZE) {
    throw new ProtocolError('BAD_INPUT', `No payload encrypts to ${cipherSize} bytes`)
  }
  if (rest === RECORD_TAG_SIZE && full > 0) {
    throw new ProtocolError('BAD_INPUT', `No payload encrypts to ${cipherSize} bytes`)
  }
  return full * recordSize + rest - RECORD_TAG_SIZE
}

function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new ProtocolError('BAD_INPUT', 'A size must be a non-negative safe integer')
  }
}
