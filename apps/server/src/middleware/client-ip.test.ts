import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'

import { clientIp, normalizeIp, reporterNetwork } from './client-ip.js'

async function ipFor(options: {
  proxies: number
  socket?: string
  forwardedFor?: string
}): Promise<string> {
  const app = new Hono().get('/', (c) => c.text(clientIp(c, options.proxies)))
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
    expect(await ipFor({ proxies: 0, socket: '203.0.113.7' })).toBe('203.0.113.7')
  })

  it('ignores X-Forwarded-For unless the proxy is trusted, so clients cannot pick their IP', async () => {
    expect(await ipFor({ proxies: 0, socket: '203.0.113.7', forwardedFor: '198.51.100.2' })).toBe(
      '203.0.113.7',
    )
  })

  it('takes the address the trusted proxy appended (the last), not one the client wrote', async () => {
    expect(
      await ipFor({
        proxies: 1,
        socket: '10.0.0.1',
        forwardedFor: ' 198.51.100.2 , 203.0.113.9 ',
      }),
    ).toBe('203.0.113.9')
    expect(await ipFor({ proxies: 1, socket: '10.0.0.1', forwardedFor: '2001:DB8::1' })).toBe(
      '2001:db8:0:0::/64',
    )
  })

  it.each(['', 'garbage', '198.51.100.2:8080', '999.1.1.1', '198.51.100.2, unknown'])(
    'falls back to the socket for X-Forwarded-For %j',
    async (forwardedFor) => {
      expect(await ipFor({ proxies: 1, socket: '10.0.0.1', forwardedFor })).toBe('10.0.0.1')
    },
  )

  // Property: behind a chain of N proxies, only what the N proxies wrote is believed.
  it('takes the address the outermost of N trusted proxies appended', async () => {
    const socket = '10.0.0.2'
    const viaTwo = (forwardedFor: string) => ipFor({ proxies: 2, socket, forwardedFor })
    expect(await viaTwo('203.0.113.9, 10.0.0.1')).toBe('203.0.113.9')
    expect(await viaTwo('198.51.100.2, 203.0.113.9, 10.0.0.1')).toBe('203.0.113.9')
    // A request that reached the inner proxy directly: the furthest address a proxy wrote.
    expect(await viaTwo('10.0.0.1')).toBe('10.0.0.1')
    expect(await viaTwo('garbage, 10.0.0.1')).toBe(socket)
    expect(
      await ipFor({ proxies: 3, socket, forwardedFor: '203.0.113.9, 10.0.0.5, 10.0.0.1' }),
    ).toBe('203.0.113.9')
  })

  it('falls back to the socket without X-Forwarded-For', async () => {
    expect(await ipFor({ proxies: 1, socket: '10.0.0.1' })).toBe('10.0.0.1')
  })

  it('answers unknown without a socket', async () => {
    expect(await ipFor({ proxies: 0 })).toBe('unknown')
  })

  it('unmaps IPv4-mapped IPv6 addresses from the socket and the header', async () => {
    expect(await ipFor({ proxies: 0, socket: '::ffff:203.0.113.7' })).toBe('203.0.113.7')
    expect(await ipFor({ proxies: 1, socket: '::1', forwardedFor: '::FFFF:198.51.100.2' })).toBe(
      '198.51.100.2',
    )
  })
})

describe('normalizeIp', () => {
  it('leaves IPv4 addresses alone', () => {
    expect(normalizeIp('203.0.113.7')).toBe('203.0.113.7')
    expect(normalizeIp('::ffff:203.0.113.7')).toBe('203.0.113.7')
  })

  // Property: one host given a /64 cannot dodge a per-IP limit by changing its address.
  it('counts every address of an IPv6 /64 as one client', () => {
    const network = normalizeIp('2001:db8:aa:7::1')
    expect(network).toBe('2001:db8:aa:7::/64')
    for (const address of [
      '2001:db8:aa:7:ffff:ffff:ffff:fffe',
      '2001:0DB8:00AA:0007:1:2:3:4',
      '2001:db8:aa:7:0:0:0:0',
      '2001:db8:aa:7::1.2.3.4',
      '2001:db8:aa:7::9%eth0',
    ]) {
      expect(normalizeIp(address)).toBe(network)
    }
  })

  it('keeps neighbouring IPv6 networks apart', () => {
    expect(normalizeIp('2001:db8:aa:8::1')).toBe('2001:db8:aa:8::/64')
    expect(normalizeIp('2001:db8:ab:7::1')).toBe('2001:db8:ab:7::/64')
    expect(normalizeIp('::1')).toBe('0:0:0:0::/64')
    expect(normalizeIp('1::')).toBe('1:0:0:0::/64')
    expect(normalizeIp('0:0:0:1::')).toBe('0:0:0:1::/64')
    expect(normalizeIp('::ffff:0:1')).toBe('0:0:0:0::/64')
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
  })

  it('keeps what is no address as it is (the unknown marker)', () => {
    expect(normalizeIp('unknown')).toBe('unknown')
  })
})

describe('reporterNetwork', () => {
  it('counts an IPv4 client as its /24 and an IPv6 client as its /48', () => {
    expect(reporterNetwork(normalizeIp('203.0.113.7'))).toBe('203.0.113.0/24')
    expect(reporterNetwork(normalizeIp('::ffff:203.0.113.250'))).toBe('203.0.113.0/24')
    expect(reporterNetwork(normalizeIp('2001:db8:7:1::5'))).toBe('2001:db8:7::/48')
    expect(reporterNetwork(normalizeIp('2001:db8:7:ffff:1:2:3:4'))).toBe('2001:db8:7::/48')
    expect(reporterNetwork(normalizeIp('2001:db8::1'))).toBe('2001:db8:0::/48')
    expect(reporterNetwork('unknown')).toBe('unknown')
  })
})
