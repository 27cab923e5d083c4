/**
 * The client IP that limits count by (spec: Limits): the socket's peer, or behind N trusted
 * proxies (TRUST_PROXY) the N-th `X-Forwarded-For` address from the end, as earlier ones could be
 * forged. An IPv6 client counts as its /64, which one host is commonly given whole.
 * May touch: nothing (pure): reads the request it is given.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'

import { ipv6Hextets } from '../ip-address.js'

/** What stands in for the address when none is known (for example under `app.request()`). */
const UNKNOWN_IP = 'unknown'

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/

export function clientIp(c: Context, trustedProxies: number): string {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming
  return incoming ? requestIp(incoming, trustedProxies) : UNKNOWN_IP
}

/** The same rule on a Node request, for the upload sockets' upgrade requests. */
export function requestIp(request: IncomingMessage, trustedProxies: number): string {
  const socketAddress = request.socket.remoteAddress
  const socketIp = socketAddress === undefined ? UNKNOWN_IP : normalizeIp(socketAddress)
  const header = request.headers['x-forwarded-for']
  if (trustedProxies <= 0 || typeof header !== 'string') return socketIp
  const addresses = header.split(',')
  const forwarded = addresses[Math.max(0, addresses.length - trustedProxies)]?.trim()
  return forwarded !== undefined && isIP(forwarded) !== 0 ? normalizeIp(forwarded) : socketIp
}

const IPV6_CLIENT_HEXTETS = 4

/** One spelling per client: `::ffff:1.2.3.4` is `1.2.3.4`, an IPv6 address its /64 prefix. */
export function normalizeIp(ip: string): string {
  const lower = ip.toLowerCase()
  const mapped = IPV4_MAPPED.exec(lower)?.[1]
  if (mapped !== undefined) return mapped
  if (isIP(lower) !== 6) return lower
  return `${ipv6Hextets(lower).slice(0, IPV6_CLIENT_HEXTETS).join(':')}::/64`
}

/**
 * The network a client counts as for abuse reports: the /48 one IPv6 site is commonly given, or
 * the IPv4 /24, keeping a small block to one allowance (reports are rare; sharers seldom meet it).
 */
export function reporterNetwork(clientIp: string): string {
  if (isIP(clientIp) === 4) return `${clientIp.split('.').slice(0, 3).join('.')}.0/24`
  const v6 = /^([0-9a-f]+:[0-9a-f]+:[0-9a-f]+):[0-9a-f]+::\/64$/.exec(clientIp)
  return v6 ? `${v6[1]}::/48` : clientIp
}
