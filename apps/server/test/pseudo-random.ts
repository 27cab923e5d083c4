/**
 * A test payload of any size that is never held whole: the AES-256-CTR keystream of a seed, so
 * any range can be produced again from its offset (a resumed upload resends from where the server
 * continues) and the whole is checked by a SHA-256 digest computed piece by piece.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto'

const BLOCK = 16
const PIECE = 1024 * 1024

export class PseudoRandomPayload {
  private readonly key: Buffer

  constructor(
    readonly size: number,
    seed: Uint8Array = randomBytes(32),
  ) {
    this.key = createHash('sha256').update(seed).digest()
  }

  /** Bytes `start … end-1` of the payload. */
  slice(start: number, end: number): Buffer {
    const from = Math.floor(start / BLOCK)
    // The counter block of byte `start`: CTR counts 16-byte blocks, big-endian, from 0.
    const counter = Buffer.alloc(BLOCK)
    counter.writeBigUInt64BE(BigInt(from), 8)
    const cipher = createCipheriv('aes-256-ctr', this.key, counter)
    const skip = start - from * BLOCK
    return cipher.update(Buffer.alloc(skip + end - start)).subarray(skip)
  }

  /** The bytes from `start` up to `end` (the end by default), in pieces of `pieceSize`. */
  *pieces(start: number, end = this.size, pieceSize = PIECE): Generator<Buffer> {
    for (let at = start; at < end; at += pieceSize) {
      yield this.slice(at, Math.min(end, at + pieceSize))
    }
  }

  /** SHA-256 of the whole payload, hex. */
  digest(): string {
    const hash = createHash('sha256')
    for (const piece of this.pieces(0)) hash.update(piece)
    return hash.digest('hex')
  }
}
