/**
 * The groups of an IPv6 address, for the client-IP key and the private-address check alike.
 * May touch: nothing (pure).
 */

/**
 * The eight 16-bit groups of a valid IPv6 address (as `isIP` accepts it), without leading zeros;
 * a zone (`%eth0`) is dropped and a trailing dotted IPv4 part counts as the last two groups.
 */
export function ipv6Hextets(address: string): string[] {
  const bare = address.split('%', 1)[0]!
  const [head = '', tail] = bare.split('::')
  const groups = (part: string | undefined) =>
    part === undefined || part === '' ? [] : part.split(':').flatMap(dottedToHextets)
  const left = groups(head)
  const right = groups(tail)
  const zeros =
    tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0')
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16))
}

/** `1.2.3.4` as the two hextets it stands for; any other group as it is. */
function dottedToHextets(group: string): string[] {
  if (!group.includes('.')) return [group]
  const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number]
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
}
