/**
 * Webhook notifications. At `POST /api/request` the `notifyWebhook` is checked on its face: https
 * (plain http only to hosts the operator lists), to no private or loopback host unless
 * NOTIFY_ALLOW_PRIVATE is on. A delivery is a JSON POST signed with HMAC-SHA256 over the exact body
 * (`X-Fileshare-Signature: sha256=<hex>`). Every address the host resolves to is checked before
 * connecting, so a name pointing at the server's own network is refused like a literal address;
 * redirects are not followed. The caller's signal bounds the whole exchange, so a receiver that
 * keeps the connection busy without a final answer (`102 Processing`, a trickle) is cut off.
 * May touch: the network (DNS and the webhook's receiver).
 */
import { createHmac } from 'node:crypto'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { BlockList, isIP, type LookupFunction } from 'node:net'

import {
  NOTIFICATION_SIGNATURE_HEADER,
  RECEIVED_HEADERS,
  type RequestNotification,
} from '@fileshare/protocol'

import type { NotifySettings } from '../config.js'
import { ipv6Hextets } from '../ip-address.js'

/** A block list of `subnets` of one address family. */
function blockList(
  family: 'ipv4' | 'ipv6',
  subnets: readonly (readonly [string, number])[],
): BlockList {
  const list = new BlockList()
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family)
  return list
}

const BLOCKED_IPV4 = blockList('ipv4', [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
])

const BLOCKED_IPV6 = blockList('ipv6', [
  // IPv4-compatible addresses (RFC 4291 §2.5.5.1, deprecated), with `::` and `::1`: a host that
  // still routes them sends them to the embedded IPv4 address, whatever it is.
  ['::', 96],
  // NAT64 local-use (RFC 8215): translated by the operator's own network, where the IPv4
  // address sits depends on a prefix length only that network knows.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
])

/** The IPv4 address an IPv6 address hands its traffic to, for the prefixes that embed one. */
function embeddedIpv4(words: number[]): string | null {
  const quad = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  const startsWith = (prefix: number[]) => prefix.every((word, i) => words[i] === word)
  // IPv4-mapped (RFC 4291 §2.5.5.2) and NAT64's well-known prefix (RFC 6052 §2.1, /96 form).
  if (startsWith([0, 0, 0, 0, 0, 0xffff]) || startsWith([0x64, 0xff9b, 0, 0, 0, 0])) {
    return quad(words[6]!, words[7]!)
  }
  // 6to4 (RFC 3056 §2): 2002:V4ADDR::/48.
  if (words[0] === 0x2002) return quad(words[1]!, words[2]!)
  return null
}

/**
 * Whether an address is one a notification must not reach unless the operator allows it
 * (loopback, private, link-local, shared, unspecified, multicast: RFC 1918, 6598, 4193, 4291), so a
 * webhook cannot probe the server's own network; so is anything that is not an IP address. An IPv6
 * address carrying a reachable IPv4 one (IPv4-mapped, NAT64's well-known prefix, 6to4) is judged
 * by it.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return BLOCKED_IPV4.check(address, 'ipv4')
  if (family !== 6) return true
  const words = ipv6Hextets(address).map((group) => parseInt(group, 16))
  const ipv4 = embeddedIpv4(words)
  if (ipv4 !== null) return BLOCKED_IPV4.check(ipv4, 'ipv4')
  return BLOCKED_IPV6.check(address.replace(/%.*$/, ''), 'ipv6')
}

export const NOTIFY_WEBHOOK_MAX_LENGTH = 2048

/** A webhook URL in its normalised form, or an Error whose message says what is wrong. */
export function parseNotifyWebhook(
  value: unknown,
  settings: Pick<NotifySettings, 'allowPrivate' | 'webhookHttpHosts'>,
): string {
  if (typeof value !== 'string') throw new Error('must be a string')
  if (value.length > NOTIFY_WEBHOOK_MAX_LENGTH) {
    throw new Error(`must be at most ${NOTIFY_WEBHOOK_MAX_LENGTH} characters`)
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error('must be an absolute URL')
  }
  if (url.username !== '' || url.password !== '') throw new Error('must not carry credentials')
  if (url.hash !== '') throw new Error('must not carry a fragment')
  const host = webhookHost(url)
  if (url.protocol === 'http:') {
    if (!settings.webhookHttpHosts.includes(host)) {
      throw new Error('must use https (plain http only to hosts the server allows)')
    }
  } else if (url.protocol !== 'https:') {
    throw new Error('must use https')
  }
  const loopbackName = host === 'localhost' || host.endsWith('.localhost')
  if (!settings.allowPrivate && (loopbackName || (isIP(host) !== 0 && isPrivateAddress(host)))) {
    throw new Error('must not point at a private or loopback address')
  }
  return url.href
}

/** The URL's host name without IPv6 brackets, lower case. */
export function webhookHost(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase()
}

/** A lookup that refuses, when private targets are not allowed, any private address. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0)
      const refused = !allowPrivate && addresses.some((entry) => isPrivateAddress(entry.address))
      if (refused || addresses.length === 0) {
        const refusal = new Error(`webhook host ${hostname} resolves to a private address`)
        return callback(refusal as NodeJS.ErrnoException, '', 0)
      }
      if (options.all) return callback(null, addresses)
      callback(null, addresses[0]!.address, addresses[0]!.family)
    })
  }
}

/** Posts the notification; resolves on a 2xx answer, rejects otherwise or once `signal` aborts. */
export async function postWebhook(
  target: string,
  notification: RequestNotification,
  secret: Buffer,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<void> {
  const url = new URL(target)
  const host = webhookHost(url)
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    throw new Error('webhook target is a private address')
  }
  const body = JSON.stringify(notification)
  const signature = createHmac('sha256', secret).update(body).digest('hex')
  const options: RequestOptions = {
    method: 'POST',
    headers: {
      [RECEIVED_HEADERS.contentType]: 'application/json',
      [RECEIVED_HEADERS.contentLength]: String(Buffer.byteLength(body)),
      'user-agent': 'fileshare-notify',
      [NOTIFICATION_SIGNATURE_HEADER]: `sha256=${signature}`,
    },
    lookup: guardedLookup(allowPrivate),
    signal,
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  await new Promise<void>((resolve, reject) => {
    const request = send(url, options, (response) => {
      response.resume()
      const status = response.statusCode ?? 0
      if (status >= 200 && status < 300) resolve()
      else reject(new Error(`webhook answered ${status}`))
    })
    // An abort destroys the request with an AbortError; the signal's reason says why.
    request.on('error', (error) => reject(signal.aborted ? signal.reason : error))
    request.end(body)
  })
}
