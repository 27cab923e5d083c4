/**
 * An HTTP/1.1 request written by hand to a TCP socket, for tests that must control how much of a
 * body reaches the server: the head with its Content-Length, then as many bytes as the test
 * chooses, and the answer as soon as the server sends it (before the body is whole, if it does).
 */
import { connect, type Socket } from 'node:net'

import { requestHead } from './harness.js'

export interface RawAnswer {
  status: number
  body: unknown
  /** The names of the answer's headers, spelled as the server sent them. */
  headerNames: string[]
}

export class RawRequest {
  private text = ''
  private readonly listeners = new Set<() => void>()
  /** Resolves once the connection has closed, whichever side closed it. */
  readonly closed: Promise<void>

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1')
    socket.on('data', (piece: string) => {
      this.text += piece
      for (const listener of this.listeners) listener()
    })
    // The server may close the connection while bytes are still being written to it.
    socket.on('error', () => undefined)
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        for (const listener of this.listeners) listener()
        resolve()
      }),
    )
  }

  /** Connects and writes the head of a POST to `path`, then `first` of its body when given. */
  static async open(
    url: string,
    path: string,
    headers: Record<string, string>,
    first?: Uint8Array,
  ): Promise<RawRequest> {
    const socket = connect(Number(new URL(url).port), '127.0.0.1')
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    const request = new RawRequest(socket)
    socket.write(requestHead('POST', path, headers))
    if (first) socket.write(first)
    return request
  }

  write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) =>
      this.socket.write(bytes, (error) => (error ? reject(error) : resolve())),
    )
  }

  /** The answer, once one has arrived whole; null when none comes within `timeoutMs`. */
  answer(timeoutMs: number): Promise<RawAnswer | null> {
    return new Promise((resolve) => {
      const check = () => {
        const parsed = this.parse()
        if (parsed || this.socket.destroyed) {
          clearTimeout(timer)
          this.listeners.delete(check)
          resolve(parsed)
        }
      }
      const timer = setTimeout(() => {
        this.listeners.delete(check)
        resolve(null)
      }, timeoutMs)
      this.listeners.add(check)
      check()
    })
  }

  destroy(): void {
    this.socket.destroy()
  }

  private parse(): RawAnswer | null {
    const end = this.text.indexOf('\r\n\r\n')
    if (end < 0) return null
    const head = this.text.slice(0, end)
    const length = /\r\ncontent-length: (\d+)/i.exec(head)
    if (!length) return null
    const body = this.text.slice(end + 4)
    if (body.length < Number(length[1])) return null
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])
    const headerNames = head
      .split('\r\n')
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(':')))
    return { status, body: JSON.parse(body.slice(0, Number(length[1]))) as unknown, headerNames }
  }
}
