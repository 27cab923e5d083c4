import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'

import { clientIp, normalizeIp } from './client-ip.js'

async function ipFor(options: {
  trustProxy: boolean
  socket?: string
  forwardedFor?: string
}): Promise<string> {
  const app = new Hono().get('/', (c) => c.text(clientIp(c, options.trustProxy)))
  const headers: Record<string, string> =
    options.forwardedFor === undefined ? {} : { 'X-Forwarded-For': options.forwardedFor }
  const nodeHeaders =
    options.forwardedFor === undefined ? {} : { 'x-forwarded-for': options.forwardedFor }
  const env =
    options.socket === undefined
      ? undefined
      : { incoming: { socket: { remoteAddress: options.socket }, headers: nodeHeaders } }
  const res = await app.request('/', { headers }, env)
  return res.text()
}

describe('clientIp', () => {
  it('uses the socket address', async () => {
    expect(await ipFor({ trustProxy: false, socket: '203.0.113.7' })).toBe('203.0.113.7')
  })

  it('ignores X-Forwarded-For unless the proxy is trusted, so clients cannot pick their IP', async () => {
    expect(
      await ipFor({ trustProxy: false, socket: '203.0.113.7', forwardedFor: '198.51.100.2' }),
    ).toBe('203.0.113.7')
  })

  it('takes the address the trusted proxy appended (the last), not one the client wrote', async () => {
    expect(
      await ipFor({
        trustProxy: true,
        socket: '10.0.0.1',
        forwardedFor: ' 198.51.100.2 , 203.0.113.9 ',
      }),
    ).toBe('203.0.113.9')
    expect(await ipFor({ trustProxy: true, socket: '10.0.0.1', forwardedFor: '2001:DB8::1' })).toBe(
      '2001:db8::1',
    )
  })

  it.each(['', 'garbage', '198.51.100.2:8080', '999.1.1.1', '198.51.100.2, unknown'])(
    'falls back to the socket for X-Forwarded-For %j',
    async (forwardedFor) => {
      expect(await ipFor({ trustProxy: true, socket: '10.0.0.1', forwardedFor })).toBe('10.0.0.1')
    },
  )

  it('falls back to the socket without X-Forwarded-For', async () => {
    expect(await ipFor({ trustProxy: true, socket: '10.0.0.1' })).toBe('10.0.0.1')
  })

  it('answers unknown without a socket', async () => {
    expect(await ipFor({ trustProxy: false })).toBe('unknown')
  })

  it('unmaps IPv4-mapped IPv6 addresses from the socket and the header', async () => {
    expect(await ipFor({ trustProxy: false, socket: '::ffff:203.0.113.7' })).toBe('203.0.113.7')
    expect(
      await ipFor({ trustProxy: true, socket: '::1', forwardedFor: '::FFFF:198.51.100.2' }),
    ).toBe('198.51.100.2')
  })
})

describe('normalizeIp', () => {
  it('leaves plain addresses alone', () => {
    expect(normalizeIp('203.0.113.7')).toBe('203.0.113.7')
    expect(normalizeIp('::1')).toBe('::1')
    expect(normalizeIp('::ffff:0:1')).toBe('::ffff:0:1')
  })
})
