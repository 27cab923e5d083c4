import { describe, expect, it } from 'vitest'

import { isPrivateAddress } from './webhook.js'

describe('private addresses behind IPv6 prefixes that carry IPv4', () => {
  // Security: a webhook cannot reach the server's own network through an IPv4 address wrapped in IPv6.
  it('judges NAT64 (well-known prefix) and 6to4 addresses by the IPv4 address inside', () => {
    for (const address of [
      '64:ff9b::a00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '2002:a00:1::1',
      '2002:7f00:1::',
      '2002:c0a8:101:1::5',
      '2002:a9fe:a9fe::',
      '2002::',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ['64:ff9b::808:808', '64:ff9b::93.184.216.34', '2002:5db8:d822::1']) {
      expect(isPrivateAddress(address), address).toBe(false)
    }
  })

  it('refuses IPv4-compatible addresses and the NAT64 local-use prefix whole', () => {
    for (const address of [
      '::a00:1',
      '::10.0.0.1',
      '::808:808',
      '::8.8.8.8',
      '::',
      '::1',
      '64:ff9b:1::808:808',
      '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
  })

  it('reads every spelling of an address alike', () => {
    expect(isPrivateAddress('::FFFF:7F00:1')).toBe(true)
    expect(isPrivateAddress('0:0:0:0:0:ffff:10.1.2.3')).toBe(true)
    expect(isPrivateAddress('2002:0a00:0001:0000:0000:0000:0000:0001')).toBe(true)
    expect(isPrivateAddress('fe80::1%eth0')).toBe(true)
    expect(isPrivateAddress('2606:2800:220:1::1')).toBe(false)
    expect(isPrivateAddress('2606:2800:220:1:0:0:0:1')).toBe(false)
  })
})
