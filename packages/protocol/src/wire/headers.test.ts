import { describe, expect, it } from 'vitest'
import { HEADERS, RECEIVED_HEADERS } from './headers.js'

describe('HEADERS', () => {
  it('spells every header name of the spec exactly', () => {
    expect(HEADERS.authToken).toBe('X-Auth-Token')
    expect(HEADERS.ownerToken).toBe('X-Owner-Token')
    expect(HEADERS.salt).toBe('X-Salt')
    expect(HEADERS.maxDownloads).toBe('X-Max-Downloads')
    expect(HEADERS.expireSec).toBe('X-Expire-Sec')
    expect(HEADERS.fileCount).toBe('X-File-Count')
    expect(HEADERS.hasPassword).toBe('X-Has-Password')
    expect(HEADERS.passwordSalt).toBe('X-Password-Salt')
    expect(HEADERS.passwordAlgo).toBe('X-Password-Algo')
    expect(HEADERS.declaredContentLength).toBe('X-Content-Length')
    expect(HEADERS.uploadToken).toBe('X-Upload-Token')
    expect(HEADERS.inboxToken).toBe('X-Inbox-Token')
    expect(HEADERS.inboxOwnerToken).toBe('X-Inbox-Owner-Token')
    expect(HEADERS.rateLimitLimit).toBe('X-RateLimit-Limit')
    expect(HEADERS.rateLimitRemaining).toBe('X-RateLimit-Remaining')
    expect(HEADERS.rateLimitReset).toBe('X-RateLimit-Reset')
    expect(HEADERS.retryAfter).toBe('Retry-After')
    expect(HEADERS.contentLength).toBe('Content-Length')
  })

  it('spells our resume opt-in as docs/api.md does', () => {
    expect(HEADERS.resumable).toBe('X-Resumable')
  })

  it('maps no two keys to the same header, whatever the case', () => {
    const names = Object.values(HEADERS).map((name) => name.toLowerCase())
    expect(new Set(names).size).toBe(names.length)
  })
})

describe('RECEIVED_HEADERS', () => {
  it('names every header in the lower case a Node server receives it in', () => {
    expect(RECEIVED_HEADERS.maxDownloads).toBe('x-max-downloads')
    expect(RECEIVED_HEADERS.declaredContentLength).toBe('x-content-length')
    expect(Object.keys(RECEIVED_HEADERS)).toEqual(Object.keys(HEADERS))
    for (const [key, name] of Object.entries(HEADERS)) {
      expect(RECEIVED_HEADERS[key as keyof typeof HEADERS]).toBe(name.toLowerCase())
    }
  })
})
