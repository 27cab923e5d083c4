/**
 * Follows the frame headers of a client's byte stream (RFC 6455 §5.2) to tell how many bytes the
 * WebSocket parser holds for an incomplete message and how many the frame under way will bring.
 * May touch: nothing (pure).
 */

/** Opcodes from this one on are control frames (§5.5): ping, pong, close. */
const FIRST_CONTROL_OPCODE = 0x8
/** The longest frame header: two bytes, an 8-byte length and a 4-byte mask key. */
const MAX_HEADER_BYTES = 14

export class FrameMeter {
  /** Bytes since the parser last held nothing: the message under way, headers included. */
  heldBytes = 0
  /** Payload bytes the frame under way has yet to bring. */
  private owed = 0
  /** Whether the frame under way is a data frame, whose payload the parser keeps until its end. */
  private dataFrame = false
  private fin = false
  /** A data message has fragments before the frame under way. */
  private fragmented = false

  private readonly header = Buffer.alloc(MAX_HEADER_BYTES)
  private headerBytes = 0

  /** Whether a frame has begun and not ended: its header or its payload is still coming. */
  get midFrame(): boolean {
    return this.owed > 0 || this.headerBytes > 0
  }

  /** Bytes held once the data frame under way is complete: what admitting its header commits. */
  get committedBytes(): number {
    return this.heldBytes + (this.dataFrame ? this.owed : 0)
  }

  push(chunk: Uint8Array): void {
    let at = 0
    while (at < chunk.length) {
      if (this.owed > 0) {
        const taken = Math.min(this.owed, chunk.length - at)
        this.owed -= taken
        this.heldBytes += taken
        at += taken
        if (this.owed === 0) this.frameDone()
        continue
      }
      this.header[this.headerBytes++] = chunk[at++]!
      this.heldBytes++
      const length = this.headerLength()
      if (length !== undefined && this.headerBytes === length) this.headerDone()
    }
  }

  /** The full length of the header being gathered, once its first two bytes say it. */
  private headerLength(): number | undefined {
    if (this.headerBytes < 2) return undefined
    const code = this.header[1]! & 0x7f
    const extended = code === 126 ? 2 : code === 127 ? 8 : 0
    const mask = this.header[1]! & 0x80 ? 4 : 0
    return 2 + extended + mask
  }

  private headerDone(): void {
    const opcode = this.header[0]! & 0x0f
    const code = this.header[1]! & 0x7f
    this.fin = (this.header[0]! & 0x80) !== 0
    this.dataFrame = opcode < FIRST_CONTROL_OPCODE
    this.owed =
      code === 126
        ? this.header.readUInt16BE(2)
        : code === 127
          ? Number(this.header.readBigUInt64BE(2))
          : code
    this.headerBytes = 0
    if (this.owed === 0) this.frameDone()
  }

  private frameDone(): void {
    if (this.dataFrame) {
      this.fragmented = !this.fin
      // The parser hands the message on at its last fragment and keeps nothing of it.
      if (this.fin) this.heldBytes = 0
    } else if (!this.fragmented) {
      // A control frame is handled at once, but inside a fragmented message counts until its end.
      this.heldBytes = 0
    }
    this.dataFrame = false
  }
}
