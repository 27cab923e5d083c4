/** The command line's fetch: a request on a connection the server closed meanwhile is sent again. */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { retryingFetch } from './api.js'

/**
 * A minimal HTTP server in its own process that promises five seconds of keep-alive but answers
 * only the first request of each connection: a second one on the same connection is logged as
 * `dropped …` and the connection closed without an answer. That is what a client meets when
 * the server's idle timeout closed a connection while the client could not notice (its event loop
 * blocked by Argon2id): the request goes out on the old connection and is never answered. Made
 * so on purpose here, the outcome does not depend on which process the machine runs first.
 */
const SERVER = `
const net = require('node:net')
const server = net.createServer((socket) => {
  let buffer = ''
  let served = false
  socket.setEncoding('latin1')
  socket.on('error', () => {})
  socket.on('data', (text) => {
    buffer += text
    for (;;) {
      const end = buffer.indexOf('\\r\\n\\r\\n')
      if (end === -1) return
      const head = buffer.slice(0, end)
      const length = Number(/content-length: *(\\d+)/i.exec(head)?.[1] ?? 0)
      if (buffer.length < end + 4 + length) return
      buffer = buffer.slice(end + 4 + length)
      const line = head.split(' ').slice(0, 2).join(' ')
      if (served) {
        console.log('dropped ' + line)
        socket.destroy()
        return
      }
      served = true
      console.log(line)
      socket.write('HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nConnection: keep-alive\\r\\nKeep-Alive: timeout=5\\r\\n\\r\\nok')
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

/** A request answered on a fresh connection, then one sent on that connection again. */
async function secondOnSameConnection(send: typeof fetch): Promise<Response> {
  const first = await send(`${url}/first`)
  expect(await first.text()).toBe('ok')
  // The pool takes the connection back a moment after its answer ends.
  await new Promise((resolve) => setTimeout(resolve, 50))
  return send(`${url}/second`, { method: 'POST', body: 'payload' })
}

describe('retryingFetch', () => {
  it('fails plain fetch on a kept-alive connection the server closed', async () => {
    await expect(secondOnSameConnection((input, init) => fetch(input, init))).rejects.toThrow(
      'fetch failed',
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(received).toEqual(['GET /first', 'dropped POST /second'])
  })

  it('sends the request again on a new connection', async () => {
    const response = await secondOnSameConnection(retryingFetch)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('ok')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(received).toEqual(['GET /first', 'dropped POST /second', 'POST /second'])
  })
})
