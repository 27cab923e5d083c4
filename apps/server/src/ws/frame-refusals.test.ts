/**
 * Guards the one use of ws's internals (frame-refusals.ts) against a ws upgrade: the parser must
 * still be there, its refusal must still be heard while the socket can send, and the limit set
 * per socket must still decide from the frame header, before the payload arrives.
 */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'

import { frameIsBinary, frameParserOf, onFrameRefused, setFrameLimit } from './frame-refusals.js'

let server: WebSocketServer | undefined

afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

/** A server whose sockets get `setUp`, and a client connected to it. */
async function connected(setUp: (ws: WebSocket) => void): Promise<WebSocket> {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1', maxPayload: 1024 })
  server.on('connection', (ws) => {
    ws.on('error', () => undefined)
    setUp(ws)
  })
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const client = new WebSocket(`ws://127.0.0.1:${port}`)
  client.on('error', () => undefined)
  await once(client, 'open')
  return client
}

/** The header of a masked binary frame declaring `length` bytes (RFC 6455 §5.2). */
function binaryHeader(length: number): Buffer {
  const header = Buffer.alloc(14)
  header[0] = 0x82
  header[1] = 0x80 | 127
  header.writeBigUInt64BE(BigInt(length), 2)
  return header
}

describe('frame refusals of ws', () => {
  it('are heard on the parser while the socket is open, so an error frame precedes the close', async () => {
    const heard: { code: unknown; open: boolean; binary: boolean }[] = []
    const client = await connected((ws) => {
      expect(frameParserOf(ws)).toBeDefined()
      onFrameRefused(ws, (error) => {
        heard.push({
          code: (error as { code?: unknown }).code,
          open: ws.readyState === ws.OPEN,
          binary: frameIsBinary(ws),
        })
        ws.send('refused')
      })
    })
    const messages: string[] = []
    client.on('message', (data) => messages.push(String(data)))
    client.send(Buffer.alloc(2048))
    const [code] = (await once(client, 'close')) as [number]
    expect(code).toBe(1009)
    expect(heard).toEqual([{ code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', open: true, binary: true }])
    expect(messages).toEqual(['refused'])
  })

  it('tell a text frame from a binary one', async () => {
    const binary: boolean[] = []
    const client = await connected((ws) => {
      onFrameRefused(ws, () => binary.push(frameIsBinary(ws)))
    })
    client.send('x'.repeat(2048))
    await once(client, 'close')
    expect(binary).toEqual([false])
  })

  it('follow a limit set per socket, deciding from the header before any payload', async () => {
    const refused: unknown[] = []
    const client = await connected((ws) => {
      expect(frameParserOf(ws)).toBeDefined()
      setFrameLimit(ws, 16)
      onFrameRefused(ws, (error) => refused.push((error as { code?: unknown }).code))
    })
    // A header declaring a large frame and no byte of its payload: refused at once.
    ;(client as unknown as { _socket: { write(bytes: Buffer): void } })._socket.write(
      binaryHeader(32 * 1024 * 1024),
    )
    const [code] = (await once(client, 'close')) as [number]
    expect(code).toBe(1009)
    expect(refused).toEqual(['WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'])
  })

  it('take a frame above the server-wide limit once the socket is allowed more', async () => {
    const received: number[] = []
    const client = await connected((ws) => {
      setFrameLimit(ws, 4096)
      ws.on('message', (data: Buffer) => {
        received.push(data.length)
        // From the next frame on, the socket may take less.
        setFrameLimit(ws, 100)
      })
    })
    client.send(Buffer.alloc(4096))
    client.send(Buffer.alloc(101))
    const [code] = (await once(client, 'close')) as [number]
    expect(received).toEqual([4096])
    expect(code).toBe(1009)
  })
})
