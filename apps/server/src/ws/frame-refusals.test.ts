/**
 * Guards the one use of ws's internals (frame-refusals.ts) against a ws upgrade: the parser must
 * still be there, and its refusal must still be heard while the socket can send.
 */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'

import { frameParserOf, onFrameRefused } from './frame-refusals.js'

let server: WebSocketServer | undefined

afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

describe('frame refusals of ws', () => {
  it('are heard on the parser while the socket is open, so an error frame precedes the close', async () => {
    const heard: { code: unknown; open: boolean }[] = []
    server = new WebSocketServer({ port: 0, host: '127.0.0.1', maxPayload: 1024 })
    server.on('connection', (ws) => {
      expect(frameParserOf(ws)).toBeDefined()
      ws.on('error', () => undefined)
      const found = onFrameRefused(ws, (error) => {
        heard.push({ code: (error as { code?: unknown }).code, open: ws.readyState === ws.OPEN })
        ws.send('refused')
      })
      expect(found).toBe(true)
    })
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const client = new WebSocket(`ws://127.0.0.1:${port}`)
    const messages: string[] = []
    client.on('message', (data) => messages.push(String(data)))
    client.on('error', () => undefined)
    await once(client, 'open')
    client.send(Buffer.alloc(2048))
    const [code] = (await once(client, 'close')) as [number]
    expect(code).toBe(1009)
    expect(heard).toEqual([{ code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', open: true }])
    expect(messages).toEqual(['refused'])
  })
})
