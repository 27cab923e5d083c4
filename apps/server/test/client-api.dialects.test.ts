/** The client core's HTTP layer against the real server: routes, caching, and its two errors. */
import { ApiError, ProtocolError } from '@fileshare/protocol'
import { freePort } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'
import { apiFor, loggingFetch } from './client-support.js'

describe('ApiClient', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ env: { FILE_REQUEST_DAILY_LIMIT: '4' } })
  })
  afterAll(() => server.close())

  it('reads config once per client and the public status routes', async () => {
    const log = loggingFetch()
    const api = apiFor(server, { fetch: log.fetch })
    const [a, b] = await Promise.all([api.config(), api.config()])
    expect(a).toBe(b)
    expect(a.webSocketUploadEnabled).toBe(true)
    expect(log.calls.filter((c) => c.url.endsWith('/api/config'))).toHaveLength(1)
    expect(await api.health()).toMatchObject({ status: 'ok', version: 'test' })
    expect(await api.quota()).toMatchObject({ enabled: false })
    expect(await api.requestLimit()).toEqual({ dailyLimit: 4, remaining: 4, resetsAt: null })
    // Login is off here: there is no session, and that is not an error.
    expect(await api.session()).toBeNull()
  })

  it('drops a trailing slash of the base address and sends the bearer token', async () => {
    const log = loggingFetch()
    const api = apiFor(server, { baseUrl: `${server.url}//`, fetch: log.fetch, bearerToken: 'jwt' })
    expect(api.baseUrl).toBe(server.url)
    await api.health()
    expect(log.calls[0]!.url).toBe(`${server.url}/api/health`)
    expect(log.calls[0]!.headers.get('authorization')).toBe('Bearer jwt')
  })

  it('throws the server’s message verbatim with its status', async () => {
    const api = apiFor(server)
    const missing = api.json('GET', '/api/info/00000000-0000-4000-8000-000000000000')
    await expect(missing).rejects.toBeInstanceOf(ApiError)
    await expect(missing).rejects.toMatchObject({
      status: 404,
      message: 'Upload not found',
      retryAfterSec: null,
    })
    const invalid = api.json('POST', '/api/note', { json: { contentType: 'nope' } })
    await expect(invalid).rejects.toMatchObject({
      status: 400,
      message: 'Invalid request',
      details: expect.objectContaining({ contentType: expect.any(String) }),
    })
  })

  it('reports an unreachable server as ProtocolError NETWORK', async () => {
    const api = apiFor({ url: `http://127.0.0.1:${await freePort()}` } as TestServer)
    const failure = api.config()
    await expect(failure).rejects.toBeInstanceOf(ProtocolError)
    await expect(failure).rejects.toMatchObject({ code: 'NETWORK' })
  })

  it('rejects with the abort reason, not NETWORK, when the caller aborts', async () => {
    const api = apiFor(server)
    const reason = new Error('stop')
    await expect(
      api.json('GET', '/api/health', { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason)
  })
})
