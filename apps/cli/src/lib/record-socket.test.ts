/** The upload socket gives a sealed record's buffer back once ws has written it, and only then. */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'

import { acquireBuffer, freeBufferCount, handOn, isHandedOn } from './record-buffers.js'
import { RecordSocket } from './record-socket.js'

let server: WebSocketServer | undefined

afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

describe('the upload socket', () => {
  it('releases a handed-on record once written, and leaves other data alone', async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
    const received: Buffer[] = []
    server.on('connection', (ws) => ws.on('message', (data) => received.push(data as Buffer)))
    await once(server, 'listening')
    const socket = new RecordSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`)
    await once(socket, 'open')

    const record = handOn(acquireBuffer(), 1000)
    record.fill(7)
    const before = freeBufferCount()
    socket.send(record)
    const plain = new Uint8Array(10).fill(1)
    socket.send(plain)
    socket.send('text')
    while (received.length < 3) await new Promise((resolve) => setTimeout(resolve, 5))

    expect(received.map((data) => data.length)).toEqual([1000, 10, 4])
    expect(received[0]!.every((byte) => byte === 7)).toBe(true)
    expect(isHandedOn(record)).toBe(false)
    expect(freeBufferCount()).toBe(before + 1)
    socket.close()
  })
})
