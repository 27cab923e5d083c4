/** The HTTP server's connection limits: an idle limit, not a cap on how long a request may take. */
import { connect, type Socket } from 'node:net'

import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { listen, type RunningServer } from './listen.js'

const IDLE_MS = 400

let running: RunningServer
let port: number

beforeAll(async () => {
  const app = new Hono()
  app.post('/count', async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }))
  // The stalled request's body read fails when its connection is closed; nobody is left to answer.
  app.onError(() => new Response(null, { status: 400 }))
  running = await listen(app, { port: 0, host: '127.0.0.1', idleTimeoutMs: IDLE_MS })
  port = Number(new URL(running.url).port)
})

afterAll(() => running.close())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function open(): Promise<{ socket: Socket; received: () => string; ended: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    let data = ''
    const socket = connect(port, '127.0.0.1', () =>
      resolve({
        socket,
        received: () => data,
        ended: new Promise((done) => socket.once('close', () => done(Date.now() - started))),
      }),
    )
    socket.setEncoding('utf8')
    socket.on('data', (text: string) => (data += text))
    socket.once('error', reject)
  })
}

describe('listen', () => {
  it('lets a request take longer than the idle limit while its bytes keep coming', async () => {
    const { socket, received } = await open()
    socket.write('POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n')
    for (let i = 0; i < 10; i++) {
      await sleep(IDLE_MS / 3)
      socket.write('x')
    }
    await sleep(200)
    expect(received()).toMatch(/^HTTP\/1\.1 200 /)
    expect(received()).toContain('{"bytes":10}')
    socket.destroy()
    expect(running.server.requestTimeout).toBe(0)
  })

  it('closes a connection whose request stopped sending for longer than the idle limit', async () => {
    const { socket, ended } = await open()
    socket.write('POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nxx')
    const after = await Promise.race([ended, sleep(IDLE_MS * 5).then(() => -1)])
    expect(after).toBeGreaterThanOrEqual(IDLE_MS - 50)
    expect(after).toBeLessThan(IDLE_MS * 5)
  })
})
