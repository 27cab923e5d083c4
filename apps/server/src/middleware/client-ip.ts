/**
 * The client IP that rate limits, the upload quota and the lockout count by (spec: Limits): the
 * socket's peer, or behind a trusted reverse proxy the last address of `X-Forwarded-For`: the one
 * that proxy appended for the peer it saw. Earlier entries come from the client and could be
 * forged to dodge the limits.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'

/** What stands in for the address when none is known (for example under `app.request()`). */
export const UNKNOWN_IP = 'unknown'

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/

export function clientIp(c: Context, trustProxy: boolean): string {
  const bindings = c.env as Partial<HttpBindings> | undefined
  if (!bindings?.incoming) return UNKNOWN_IP
  return requestIp(bindings.incoming, trustProxy)
}

/** The same rule on a Node request, for the upload sockets' upgrade requests. */
export function requestIp(request: IncomingMessage, trustProxy: boolean): string {
  const socketAddress = request.socket.remoteAddress
  const socketIp = socketAddress === undefined ? UNKNOWN_IP : normalizeIp(socketAddress)
  const header = request.headers['x-forwarded-for']
  if (!trustProxy || typeof header !== 'string') return socketIp
  const forwarded = header.split(',').at(-1)?.trim()
  return forwarded !== undefined && isIP(forwarded) !== 0 ? normalizeIp(forwarded) : socketIp
}

/**
 * One spelling per address, so a dual-stack socket's `::ffff:1.2.3.4` and a proxy's `1.2.3.4`
 * count as the same client; IPv6 hex digits are case-insensitive.
 */
export function normalizeIp(ip: string): string {
  const lower = ip.toLowerCase()
  return IPV4_MAPPED.exec(lower)?.[1] ?? lower
}
