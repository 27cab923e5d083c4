/** How a failure to reach the server is reported: with the most specific cause there is. */
import { createServer } from 'node:net'

import { describe, expect, it } from 'vitest'

import { ApiClient, networkError } from './api.js'

describe('networkError', () => {
  it("names the innermost cause, not Node's bare `fetch failed`", () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:9')
    const error = networkError(new TypeError('fetch failed', { cause: refused }))
    expect(error.code).toBe('NETWORK')
    expect(error.message).toBe('Could not reach the server: connect ECONNREFUSED 127.0.0.1:9')
  })

  it('names every address of an AggregateError that has no message of its own', () => {
    const every = new AggregateError(
      [
        new Error('connect ECONNREFUSED ::1:3000'),
        new Error('connect ECONNREFUSED 127.0.0.1:3000'),
      ],
      '',
    )
    expect(networkError(new TypeError('fetch failed', { cause: every })).message).toBe(
      'Could not reach the server: connect ECONNREFUSED ::1:3000; connect ECONNREFUSED 127.0.0.1:3000',
    )
  })

  it("keeps a browser's own message, and says no more than it knows", () => {
    expect(networkError(new TypeError('Failed to fetch')).message).toBe(
      'Could not reach the server: Failed to fetch',
    )
    expect(networkError('gone').message).toBe('Could not reach the server')
  })

  it('reports the refused address of a real connection', async () => {
    // A port that was just free: nothing listens there now.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as { port: number }
    await new Promise((resolve) => probe.close(resolve))
    const api = new ApiClient({ baseUrl: `http://127.0.0.1:${port}` })
    await expect(api.config()).rejects.toThrow(
      `Could not reach the server: connect ECONNREFUSED 127.0.0.1:${port}`,
    )
  })
})
