/** The command line's fetch: a request on a connection the server closed meanwhile is sent again. */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { retryingFetch } from './api.js'

/**
 * A minimal HTTP server in its own process (so that blocking this one does not stop it) that
 * promises five seconds of keep-alive but drops an idle connection after 100 ms, as a server
 * does whose own timeout ran out while this process could not notice.
 */
const SERVER = `
const net = require('node:net')
const server = net.createServer((socket) => {
  let buffer = ''
  let idle
  socket.setEncoding('latin1')
  socket.on('error', () => {})
  socket.on('data', (text) => {
    clearTimeout(idle)
    buffer += text
    for (;;) {
      const end = buffer.indexOf('\\r\\n\\r\\n')
      if (end === -1) return
      const head = buffer.slice(0, end)
      const length = Number(/content-length: *(\\d+)/i.exec(head)?.[1] ?? 0)
      if (buffer.length < end + 4 + length) return
      buffer = buffer.slice(end + 4 + length)
      console.log(head.split(' ').slice(0, 2).join(' '))
      socket.write('HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nConnection: keep-alive\\r\\nKeep-Alive: timeout=5\\r\\n\\r\\nok')
      idle = setTimeout(() => socket.destroy(), 100)
    }
  })
})
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port))
`

let child: ChildProcess
let url: string
let received: string[]

beforeEach(async () => {
  received = []
  child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] })
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    for (const line of text.split('\n').filter(Boolean)) {
      const port = /^port (\d+)$/.exec(line)?.[1]
      if (port) url = `http://127.0.0.1:${port}`
      else received.push(line)
    }
  })
  while (!url) await new Promise((resolve) => setTimeout(resolve, 20))
})

afterEach(async () => {
  child.kill()
  await once(child, 'exit')
  url = ''
})

/** What a password derivation does to the event loop: no timer or socket event runs. */
function blockFor(ms: number): void {
  const until = Date.now() + ms
  while (Date.now() < until) {
    // Busy, like Argon2id in WebAssembly.
  }
}

async function afterBlock(send: typeof fetch): Promise<Response> {
  expect((await send(`${url}/first`)).status).toBe(200)
  blockFor(400)
  await new Promise((resolve) => setTimeout(resolve, 0))
  return send(`${url}/second`, { method: 'POST', body: 'payload' })
}

describe('retryingFetch', () => {
  it('fails plain fetch on a connection closed during a blocked event loop', async () => {
    await expect(afterBlock((input, init) => fetch(input, init))).rejects.toThrow('fetch failed')
  })

  it('sends the request again on a new connection', async () => {
    const response = await afterBlock(retryingFetch)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('ok')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(received).toEqual(['GET /first', 'POST /second'])
  })
})
