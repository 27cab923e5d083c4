/**
 * The server keeps an idle keep-alive connection open longer than the documented nginx keeps its
 * idle upstream connections, so nginx never sends a request on a connection the server is closing.
 */
import { request } from 'node:http'

import { deployBlock } from '@fileshare/testing'
import { afterEach, expect, it } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** The `Keep-Alive` header of an answer on a connection of its own. */
function keepAliveHeader(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { Connection: 'keep-alive' } }, (res) => {
      res.resume()
      res.once('end', () => {
        req.destroy()
        resolve(String(res.headers['keep-alive']))
      })
    })
    req.once('error', reject)
    req.end()
  })
}

it('outlasts the idle upstream connections of the documented nginx', async () => {
  const upstream = /^upstream fileshare \{\n([\s\S]*?)^\}/m.exec(
    await deployBlock('nginx', 'cluster'),
  )
  expect(upstream, 'the upstream block of docs/deploy.md').not.toBeNull()
  // nginx drops an idle upstream connection after 60 s unless told otherwise.
  const proxy = /^\s*keepalive_timeout (\d+)s;/m.exec(upstream![1]!)
  const proxySeconds = proxy ? Number(proxy[1]) : 60
  server = await startTestServer()
  const header = await keepAliveHeader(`${server.url}/api/health`)
  const serverSeconds = Number(/timeout=(\d+)/.exec(header)?.[1])
  expect(serverSeconds).toBeGreaterThan(proxySeconds)
})
