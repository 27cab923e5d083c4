/**
 * The command line's upload sockets mask every frame with an all-zero key (docs/api.md, Clients):
 * still masked as RFC 6455 demands of a client, without a pass over the payload on either side.
 */
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'

import { nodeWebSocket } from './api.js'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** A bare WebSocket endpoint that accepts the handshake and hands back the first frame's bytes. */
async function frameCatcher() {
  let resolveFrame: (bytes: Buffer) => void = () => undefined
  const frame = new Promise<Buffer>((resolve) => (resolveFrame = resolve))
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    let buffered = Buffer.alloc(0)
    let upgraded = false
    socket.on('error', () => undefined)
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data])
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end === -1) return
        const key = /sec-websocket-key: *(\S+)/i.exec(buffered.subarray(0, end).toString())![1]!
        const accept = createHash('sha1')
          .update(key + GUID)
          .digest('base64')
        socket.write(
          'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
            `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
        )
        upgraded = true
        buffered = buffered.subarray(end + 4)
      }
      // A short text frame: 2 header bytes, 4 mask bytes, then the payload.
      if (buffered.length >= 6 && buffered.length >= 6 + (buffered[1]! & 0x7f)) {
        resolveFrame(buffered)
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `ws://127.0.0.1:${port}/api/upload/ws`,
    frame,
    close: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    },
  }
}

describe('upload sockets of the command line', () => {
  let cleanup: (() => void) | undefined
  afterEach(() => cleanup?.())

  it('sends masked frames whose mask key is zero, so the payload goes out as it is', async () => {
    const catcher = await frameCatcher()
    cleanup = catcher.close
    const socket = (await nodeWebSocket())(catcher.url)
    socket.onopen = () => socket.send('{"type":"init"}')
    const frame = await catcher.frame
    socket.close()
    expect(frame[1]! & 0x80).toBe(0x80)
    expect([...frame.subarray(2, 6)]).toEqual([0, 0, 0, 0])
    expect(frame.subarray(6, 6 + (frame[1]! & 0x7f)).toString()).toBe('{"type":"init"}')
  })
})
