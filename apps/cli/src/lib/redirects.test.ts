/** The command line's redirect rule, through its real API client, against two local servers. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { createApi } from './api.js'
import { isTrustedRedirect } from './redirects.js'

interface Seen {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}

interface Local {
  url: string
  seen: Seen[]
  server: Server
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

async function serve(handler: Handler): Promise<Local> {
  const seen: Seen[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (text: string) => (body += text))
    request.on('end', () => {
      const path = request.url ?? ''
      seen.push({ method: request.method ?? '', path, headers: request.headers, body })
      handler(request, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server }
}

function json(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(value))
}

let a: Local
let b: Local
/** Where `a` sends every request whose path starts with /moved: set by each test. */
let target: (path: string) => string

beforeEach(async () => {
  b = await serve((request, response) => {
    if (request.url?.startsWith('/api/download/')) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end('bytes of b')
    } else json(response, { from: 'b' })
  })
  a = await serve((request, response) => {
    const path = request.url ?? ''
    if (path.startsWith('/moved')) {
      const status = Number(new URL(path, a.url).searchParams.get('status') ?? 307)
      response.writeHead(status, { Location: target(path) }).end()
    } else if (path.startsWith('/api/download/')) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end('bytes of a')
    } else json(response, { from: 'a' })
  })
})

afterEach(async () => {
  for (const { server } of [a, b]) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

const CROSS = 'not following it with credentials'

describe('redirects', () => {
  it('security: a token header is never sent to another origin, on downloads or other requests', async () => {
    target = (path) => `${b.url}${path.replace('/moved', '')}`
    const api = createApi(a.url)
    const headers = { 'X-Auth-Token': 'secret-token' }
    await expect(api.raw('GET', '/moved/api/download/x', { headers })).rejects.toThrow(
      `The server redirected to ${b.url}; ${CROSS}`,
    )
    await expect(api.raw('POST', '/moved/api/password/x', { headers })).rejects.toMatchObject({
      code: 'NETWORK',
      message: `The server redirected to ${b.url}; ${CROSS}`,
    })
    await expect(
      api.raw('DELETE', '/moved/api/upload/x', { headers: { 'X-Owner-Token': 'owner' } }),
    ).rejects.toThrow(CROSS)
    expect(b.seen).toEqual([])
  })

  it("security: the login's bearer token is never sent to another origin", async () => {
    target = () => `${b.url}/api/quota`
    const api = createApi(a.url, { bearerToken: 'session-jwt' })
    await expect(api.raw('GET', '/moved')).rejects.toThrow(CROSS)
    expect(b.seen).toEqual([])
  })

  it('follows a redirect on the same origin with every header', async () => {
    target = (path) => path.replace('/moved', '')
    const api = createApi(a.url)
    const response = await api.raw('GET', '/moved/api/download/x', {
      headers: { 'X-Auth-Token': 'secret-token' },
    })
    expect(await response.text()).toBe('bytes of a')
    expect(a.seen.map((s) => [s.path, s.headers['x-auth-token']])).toEqual([
      ['/moved/api/download/x', 'secret-token'],
      ['/api/download/x', 'secret-token'],
    ])
  })

  it('continues a POST answered 303 as a GET without its body, and keeps the body on 307', async () => {
    target = () => '/api/info/x'
    const api = createApi(a.url)
    await api.raw('POST', '/moved?status=303', { json: { authToken: 't' } })
    await api.raw('POST', '/moved?status=307', { json: { authToken: 't' } })
    expect(a.seen.map((s) => [s.method, s.path, s.body, s.headers['content-type']])).toEqual([
      ['POST', '/moved?status=303', '{"authToken":"t"}', 'application/json'],
      ['GET', '/api/info/x', '', undefined],
      ['POST', '/moved?status=307', '{"authToken":"t"}', 'application/json'],
      ['POST', '/api/info/x', '{"authToken":"t"}', 'application/json'],
    ])
  })

  it('follows a presigned URL (no credentials) wherever it is redirected', async () => {
    target = (path) => `${b.url}${path.replace('/moved', '')}`
    const api = createApi(a.url)
    const response = await api.external(`${a.url}/moved/api/download/object`)
    expect(await response.text()).toBe('bytes of b')
    expect(b.seen.map((s) => s.path)).toEqual(['/api/download/object'])
  })

  it('gives up after 20 redirects', async () => {
    target = (path) => path
    await expect(createApi(a.url).raw('GET', '/moved')).rejects.toThrow(
      'The server redirected too many times',
    )
    expect(a.seen).toHaveLength(21)
  })

  it('trusts the same origin, and http to https of the same host on the same or default ports', () => {
    const trusted = (from: string, to: string) => isTrustedRedirect(new URL(from), new URL(to))
    expect(trusted('https://share.example/a', 'https://share.example/b')).toBe(true)
    expect(trusted('http://share.example/a', 'https://share.example/a')).toBe(true)
    expect(trusted('http://share.example:80/a', 'https://share.example:443/a')).toBe(true)
    expect(trusted('http://share.example:8080/a', 'https://share.example:8080/a')).toBe(true)
    expect(trusted('http://share.example/a', 'https://share.example:8443/a')).toBe(false)
    expect(trusted('https://share.example/a', 'http://share.example/a')).toBe(false)
    expect(trusted('https://share.example/a', 'https://share.example:8443/a')).toBe(false)
    expect(trusted('https://share.example/a', 'https://evil.example/a')).toBe(false)
    expect(trusted('https://share.example/a', 'https://a.share.example/a')).toBe(false)
  })
})
