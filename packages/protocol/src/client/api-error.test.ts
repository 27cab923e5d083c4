import { describe, expect, it } from 'vitest'
import { ApiError, apiErrorFromResponse, isApiError, parseRetryAfter } from './api-error.js'

describe('ApiError', () => {
  it('carries the server’s message verbatim, its details and Retry-After', async () => {
    const response = new Response(
      JSON.stringify({ error: 'Too many failed attempts, try again later', details: { a: 'b' } }),
      { status: 429, headers: { 'Retry-After': '900' } },
    )
    const error = await apiErrorFromResponse(response)
    expect(error).toBeInstanceOf(ApiError)
    expect(error.message).toBe('Too many failed attempts, try again later')
    expect(error.status).toBe(429)
    expect(error.retryAfterSec).toBe(900)
    expect(error.details).toEqual({ a: 'b' })
    expect(isApiError(error, 429)).toBe(true)
    expect(isApiError(error, 404)).toBe(false)
  })

  it('falls back to HTTP <status> when the body is not the error shape', async () => {
    for (const body of ['<html>bad gateway</html>', '', '{"message":"x"}', '[1]']) {
      const error = await apiErrorFromResponse(new Response(body, { status: 502 }))
      expect(error.message).toBe('HTTP 502')
      expect(error.retryAfterSec).toBeNull()
      expect(error.details).toBeUndefined()
    }
  })

  it('tells a takedown from an expiry by the 410 body’s reason', async () => {
    const removed = await apiErrorFromResponse(
      new Response(
        JSON.stringify({ error: 'Removed by the operator', reason: 'removed', takedown: 'Spam' }),
        { status: 410 },
      ),
    )
    expect([removed.status, removed.removed, removed.takedown]).toEqual([410, true, 'Spam'])
    const expired = await apiErrorFromResponse(
      new Response(JSON.stringify({ error: 'Note has expired', takedown: 'x' }), { status: 410 }),
    )
    expect([expired.removed, expired.takedown]).toEqual([false, null])
  })

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfter('120', now)).toBe(120)
    expect(parseRetryAfter(' 0 ', now)).toBe(0)
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:30 GMT', now)).toBe(90)
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter('-5', now)).toBeNull()
    expect(parseRetryAfter(null, now)).toBeNull()
  })
})
