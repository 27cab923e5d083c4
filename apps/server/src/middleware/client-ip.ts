/**
 * The client IP that rate limits, the upload quota and the lockout count by (spec: Limits): the
 * socket's peer, or behind N trusted reverse proxies (TRUST_PROXY) the N-th address from the end
 * of `X-Forwarded-For`: each proxy appends the peer it saw, so that one is what the outermost
 * proxy saw. Earlier entries come from the client and could be forged to dodge the limits; a
 * header shorter than the chain (a request that skipped the outer proxies) gives its first
 * address, the furthest one a trusted proxy wrote. An IPv6 client counts as its /64 network,
 * since one host is commonly given a whole /64 and could otherwise take a fresh address for
 * every request.
 * May touch: nothing (pure): reads the request it is given.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'

import { ipv6Hextets } from '../ip-address.js'

/** What stands in for the address when none is known (for example under `app.request()`). */
export const UNKNOWN_IP = 'unknown'

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/

export function clientIp(c: Context, trustedProxies: number): string {
  const bindings = c.env as Partial<HttpBindings> | undefined
  if (!bindings?.incoming) return UNKNOWN_IP
  return requestIp(bindings.incoming, trustedProxies)
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

/** Hextets of an IPv6 network prefix that make one client: a /64. */
const IPV6_CLIENT_HEXTETS = 4

/**
 * One spelling per client, so a dual-stack socket's `::ffff:1.2.3.4` and a proxy's `1.2.3.4`
 * count as the same client; an IPv6 address becomes its /64 network (`2001:db8:0:7::/64`), in
 * one spelling whatever zeros the address was written with or left out.
 */
export function normalizeIp(ip: string): string {
  const lower = ip.toLowerCase()
  const mapped = IPV4_MAPPED.exec(lower)?.[1]
  if (mapped !== undefined) return mapped
  if (isIP(lower) !== 6) return lower
  return `${ipv6Hextets(lower).slice(0, IPV6_CLIENT_HEXTETS).join(':')}::/64`
}

/**
 * The network a client counts as for abuse reports: its IPv4 /24 or its IPv6 /48, from what
 * `normalizeIp` gave. A /48 is what one IPv6 site is commonly given; for IPv4 a /24 (rather than
 * the address) keeps a holder of a small block, a hosting subnet say, to one allowance, while
 * reports are rare enough that unrelated reporters who share a /24 seldom meet the bound.
 */
export function reporterNetwork(clientIp: string): string {
  if (isIP(clientIp) === 4) return `${clientIp.split('.').slice(0, 3).join('.')}.0/24`
  const v6 = /^([0-9a-f]+:[0-9a-f]+:[0-9a-f]+):[0-9a-f]+::\/64$/.exec(clientIp)
  return v6 ? `${v6[1]}::/48` : clientIp
}
