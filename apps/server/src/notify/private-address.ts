/**
 * Whether an IP address is one a notification must not reach unless the operator allows it
 * (loopback, private, link-local, shared, unspecified, multicast: RFC 1918, 6598, 4193, 4291), so a
 * webhook cannot probe the server's own network. An IPv6 address carrying a reachable IPv4 one
 * (IPv4-mapped, NAT64's well-known prefix, 6to4) is judged by it.
 * May touch: nothing (pure).
 */
import { BlockList, isIP } from 'node:net'

import { ipv6Hextets } from '../ip-address.js'

const BLOCKED_IPV4 = new BlockList()
for (const [network, prefix] of [
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
] as const) {
  BLOCKED_IPV4.addSubnet(network, prefix, 'ipv4')
}

const BLOCKED_IPV6 = new BlockList()
for (const [network, prefix] of [
  // IPv4-compatible addresses (RFC 4291 §2.5.5.1, deprecated), with `::` and `::1`: a host that
  // still routes them sends them to the embedded IPv4 address, whatever it is.
  ['::', 96],
  // NAT64 local-use (RFC 8215): translated by the operator's own network, where the IPv4
  // address sits depends on a prefix length only that network knows.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED_IPV6.addSubnet(network, prefix, 'ipv6')
}

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

/** True for an address in a blocked range, or for anything that is not an IP address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return BLOCKED_IPV4.check(address, 'ipv4')
  if (family !== 6) return true
  const words = ipv6Hextets(address).map((group) => parseInt(group, 16))
  const ipv4 = embeddedIpv4(words)
  if (ipv4 !== null) return BLOCKED_IPV4.check(ipv4, 'ipv4')
  return BLOCKED_IPV6.check(address.replace(/%.*$/, ''), 'ipv6')
}
