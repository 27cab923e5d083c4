import { describe, expect, it } from 'vitest'

import { parseResponseHeaders } from './xhr-fetch'

describe('parseResponseHeaders', () => {
  it('reads every CRLF-ended line, values with colons and repeated names included', () => {
    const headers = parseResponseHeaders(
      'content-type: application/json\r\nretry-after: 30\r\nx-note: a: b\r\nvary: origin\r\nvary: accept\r\n',
    )
    expect(headers.get('Content-Type')).toBe('application/json')
    expect(headers.get('retry-after')).toBe('30')
    expect(headers.get('x-note')).toBe('a: b')
    expect(headers.get('vary')).toBe('origin, accept')
  })

  it('skips empty and malformed lines', () => {
    expect([...parseResponseHeaders('\r\n: nameless\r\nno colon\r\n')]).toEqual([])
  })
})
