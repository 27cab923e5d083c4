/**
 * The address of the server's own `/api/health`, as a probe on the same machine reaches it.
 * May touch: nothing (pure).
 */
import { isIPv6 } from 'node:net'

import type { Config } from './config.js'

/** HOSTs that listen on every address; a probe asks them over IPv4's loopback. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::'])

export function healthUrl(config: Pick<Config, 'host' | 'port'>): string {
  const host = WILDCARD_HOSTS.has(config.host) ? '127.0.0.1' : config.host
  return `http://${isIPv6(host) ? `[${host}]` : host}:${config.port}/api/health`
}
