/**
 * A WebSocket client written by hand over TCP, for tests that must send what no WebSocket library
 * sends: the header of a large frame and only part of its payload. It reads the server's frames
 * (unmasked, RFC 6455 §5.2), answers pings between its own frames, never inside one, and ends
 * the connection when the server closes it.
 */
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'

import { FrameMeter } from '../src/ws/frame-meter.js'

export interface ServerFrames {
  texts: string[]
  /** The code of the server's close frame, once one has arrived. */
  closeCode: number | undefined
}

/** The header of a masked client frame (mask key zero, so the payload goes as it is). */
export function frameHeader(opcode: number, length: number): Buffer {
  if (length < 126) return Buffer.from([0x80 | opcode, 0x80 | length, 0, 0, 0, 0])
  if (length < 0x10000) {
    const header = Buffer.from([0x80 | opcode, 0x80 | 126, 0, 0, 0, 0, 0, 0])
    header.writeUInt16BE(length, 2)
    return header
  }
  const header = Buffer.alloc(14)
  header[0] = 0x80 | opcode
  header[1] = 0x80 | 127
  header.writeBigUInt64BE(BigInt(length), 2)
  return header
}

export function textFrame(text: string): Buffer {
  const payload = Buffer.from(text)
  return Buffer.concat([frameHeader(0x1, payload.length), payload])
}

export class RawSocket {
  readonly frames: ServerFrames = { texts: [], closeCode: undefined }
  /** Resolves once the TCP connection has closed, whichever side closed it. */
  readonly closed: Promise<void>
  private received = Buffer.alloc(0)
  private upgraded = false
  private readonly listeners = new Set<() => void>()
  /** Follows what the test writes, so a pong never lands inside one of its frames. */
  private readonly sent = new FrameMeter()
  private pongs: Buffer[] = []

  private constructor(private readonly socket: Socket) {
    // The server may close the connection while bytes are still being written to it.
    socket.on('error', () => undefined)
    socket.on('data', (piece: Buffer) => this.read(piece))
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()))
    socket.once('close', () => this.notify())
  }

  /** Connects to `url` (ws://) and completes the upgrade; `headers` go with the upgrade request. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    const { hostname, port, pathname } = new URL(url)
    const socket = connect(Number(port), hostname)
    const raw = new RawSocket(socket)
    const lines = [
      `GET ${pathname} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ]
    socket.write(`${lines.join('\r\n')}\r\n\r\n`)
    await raw.until(() => raw.upgraded || socket.destroyed)
    if (!raw.upgraded) throw new Error('the upgrade was refused')
    return raw
  }

  /** Writes `bytes`; resolves once they are handed to the system, or the connection is gone. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve()
    this.sent.push(bytes)
    const written = new Promise<void>((resolve) => this.socket.write(bytes, () => resolve()))
    this.sendPongs()
    return written
  }

  /** Sends the pongs held back while one of the test's frames was partly written. */
  private sendPongs(): void {
    if (this.sent.midFrame || this.socket.destroyed) return
    for (const pong of this.pongs) this.socket.write(pong)
    this.pongs = []
  }

  /** Resolves once `done()` holds, checked after every frame the server sends and at the close. */
  until(done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return
        this.listeners.delete(check)
        resolve()
      }
      this.listeners.add(check)
      check()
    })
  }

  /** Whether the connection is gone. */
  get ended(): boolean {
    return this.socket.destroyed
  }

  destroy(): void {
    this.socket.destroy()
  }

  private read(piece: Buffer): void {
    this.received = Buffer.concat([this.received, piece])
    if (!this.upgraded) {
      const end = this.received.indexOf('\r\n\r\n')
      if (end < 0) return
      const status = this.received.subarray(0, end).toString('latin1').split(' ')[1]
      if (status !== '101') {
        this.socket.destroy()
        return
      }
      this.upgraded = true
      this.received = this.received.subarray(end + 4)
    }
    this.readFrames()
    this.notify()
  }

  /** Server frames are unmasked and small here: `error` texts and the close. */
  private readFrames(): void {
    for (;;) {
      if (this.received.length < 2) return
      const opcode = this.received[0]! & 0x0f
      let length = this.received[1]! & 0x7f
      let start = 2
      if (length === 126) {
        if (this.received.length < 4) return
        length = this.received.readUInt16BE(2)
        start = 4
      } else if (length === 127) {
        if (this.received.length < 10) return
        length = Number(this.received.readBigUInt64BE(2))
        start = 10
      }
      if (this.received.length < start + length) return
      const payload = this.received.subarray(start, start + length)
      this.received = this.received.subarray(start + length)
      if (opcode === 0x1) this.frames.texts.push(payload.toString('utf8'))
      // A ping is answered, as every client must (RFC 6455 §5.5.2), so keepalive keeps it.
      if (opcode === 0x9) {
        this.pongs.push(Buffer.concat([frameHeader(0xa, length), payload]))
        this.sendPongs()
      }
      if (opcode === 0x8) {
        this.frames.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
        // The closing handshake's answer: the client's close, then the end of the connection.
        this.socket.end(Buffer.from([0x88, 0x80, 0, 0, 0, 0]))
      }
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener()
  }
}
