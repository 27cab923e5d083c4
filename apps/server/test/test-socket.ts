/** A WebSocket client for the upload socket suites that records every text frame and the close. */
import type { Socket } from 'node:net'

import { expect } from 'vitest'
import WebSocket, { type ClientOptions } from 'ws'

export type Frame = Record<string, unknown>

const KiB = 1024

/** A masked, empty binary frame with RSV1 set: malformed without an extension (TestSocket.writeRaw). */
export const MALFORMED_FRAME = Uint8Array.from([0xc2, 0x80, 1, 2, 3, 4])

/** A text frame's payload that is not UTF-8. */
export const NOT_UTF8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d])

export class TestSocket {
  readonly frames: Frame[] = []
  readonly closed: Promise<{ code: number; reason: string }>
  private readonly listeners = new Set<() => void>()

  private constructor(readonly ws: WebSocket) {
    // A server that drops the connection resets it; the close code (1006) tells the tests that.
    ws.on('error', () => undefined)
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.frames.push(JSON.parse(String(data)) as Frame)
      for (const listener of this.listeners) listener()
    })
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() })
        for (const listener of this.listeners) listener()
      })
    })
  }

  static open(url: string, options: ClientOptions = {}): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, options)
      const socket = new TestSocket(ws)
      ws.once('open', () => resolve(socket))
      ws.once('error', reject)
    })
  }

  /** The first frame of `type`; fails when the socket closes without one. */
  waitFor(type: string): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const frame = this.frames.find((f) => f.type === type)
        if (frame) {
          this.listeners.delete(check)
          resolve(frame)
        } else if (this.ws.readyState === WebSocket.CLOSED) {
          this.listeners.delete(check)
          reject(new Error(`closed without ${type}: ${JSON.stringify(this.frames)}`))
        }
      }
      this.listeners.add(check)
      check()
    })
  }

  /** The first text frame, or undefined when the socket closes without one. */
  firstFrame(): Promise<Frame | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.frames.length > 0 || this.ws.readyState === WebSocket.CLOSED) {
          this.listeners.delete(check)
          resolve(this.frames[0])
        }
      }
      this.listeners.add(check)
      check()
    })
  }

  sendJson(frame: unknown): void {
    this.ws.send(JSON.stringify(frame))
  }

  /** Sends `init` and resolves with the upload id of `ready`. */
  async init(frame: Frame): Promise<string> {
    this.sendJson(frame)
    return (await this.waitFor('ready')).id as string
  }

  sendBytes(body: Uint8Array, frameSize = 64 * KiB): void {
    for (let offset = 0; offset < body.length; offset += frameSize) {
      this.ws.send(body.subarray(offset, offset + frameSize), { binary: true })
    }
  }

  /**
   * Sends `pieces` as binary frames, each once fewer than `maxBuffered` bytes wait to be sent, so
   * a slow or dead peer holds back the sender instead of filling its memory; throws once the
   * socket is no longer open.
   */
  async sendPaced(pieces: Iterable<Uint8Array>, maxBuffered = 4 * 1024 * KiB): Promise<void> {
    for (const piece of pieces) {
      while (this.ws.readyState === WebSocket.OPEN && this.ws.bufferedAmount >= maxBuffered) {
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      if (this.ws.readyState !== WebSocket.OPEN) throw new Error('the socket closed while sending')
      this.ws.send(piece, { binary: true })
    }
  }

  /**
   * Writes bytes straight to the TCP connection under the WebSocket: frames `ws` would never
   * make, such as a masked, empty binary frame with RSV1 set, which no extension here gives a
   * meaning (MALFORMED_FRAME).
   */
  writeRaw(bytes: Uint8Array): void {
    ;(this.ws as unknown as { _socket: Socket })._socket.write(bytes)
  }

  /** Sends `init` and expects one `error` frame and a close with 1008. */
  async refusal(frame: Frame): Promise<Frame> {
    this.sendJson(frame)
    expect((await this.closed).code).toBe(1008)
    expect(this.frames).toHaveLength(1)
    return this.frames[0]!
  }
}

/** What a refused upgrade answered, or `open` when it was not refused. */
export function upgradeAnswer(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => {
      ws.terminate()
      resolve({ status: 101, body: 'open' })
    })
    ws.once('unexpected-response', (_req, res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()) }),
      )
    })
    ws.once('error', (error) => {
      if (!String(error.message).startsWith('Unexpected server response')) reject(error)
    })
  })
}
