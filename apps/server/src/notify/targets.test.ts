import { describe, expect, it } from 'vitest'

import { parseNotifyEmail } from './email.js'
import { isPrivateAddress, parseNotifyWebhook } from './webhook.js'

const STRICT = { allowPrivate: false, webhookHttpHosts: [] }

describe('notification targets', () => {
  it('takes an address of sane syntax and length only', () => {
    expect(parseNotifyEmail('owner@example.org')).toBe('owner@example.org')
    for (const bad of ['owner', 'owner@', '@example.org', 'a b@example.org', 'a@b', 'a..b@x.org']) {
      expect(() => parseNotifyEmail(bad), bad).toThrow('must be an email address')
    }
    expect(() => parseNotifyEmail(`${'a'.repeat(64)}@${'b'.repeat(190)}.org`)).toThrow(
      'at most 254',
    )
    expect(() => parseNotifyEmail(42)).toThrow('must be a string')
  })

  it('takes https webhooks, and plain http only to hosts the operator lists', () => {
    expect(parseNotifyWebhook('https://hooks.example.org/in?x=1', STRICT)).toBe(
      'https://hooks.example.org/in?x=1',
    )
    expect(() => parseNotifyWebhook('http://hooks.example.org/in', STRICT)).toThrow('https')
    const listed = { allowPrivate: false, webhookHttpHosts: ['hooks.example.org'] }
    expect(parseNotifyWebhook('http://hooks.example.org/in', listed)).toBe(
      'http://hooks.example.org/in',
    )
    for (const bad of ['ftp://hooks.example.org/', 'https://u:p@hooks.example.org/', 'hooks']) {
      expect(() => parseNotifyWebhook(bad, STRICT), bad).toThrow()
    }
  })

  it('refuses loopback and private hosts unless NOTIFY_ALLOW_PRIVATE is on', () => {
    // Security: a request creator cannot make the server probe its own network.
    for (const host of [
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://192.168.0.1/',
      'https://169.254.169.254/latest',
      'https://[::1]/',
      'https://[fd00::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://localhost/',
      'https://localhost./',
      'https://0x7f000001/',
    ]) {
      expect(() => parseNotifyWebhook(host, STRICT), host).toThrow('private or loopback')
      expect(() => parseNotifyWebhook(host, { ...STRICT, allowPrivate: true }), host).not.toThrow()
    }
  })

  it('tells public addresses from private ones', () => {
    expect(isPrivateAddress('93.184.216.34')).toBe(false)
    expect(isPrivateAddress('2606:2800:220:1::1')).toBe(false)
    expect(isPrivateAddress('172.16.5.4')).toBe(true)
    expect(isPrivateAddress('100.64.0.1')).toBe(true)
    expect(isPrivateAddress('::ffff:10.0.0.1')).toBe(true)
    expect(isPrivateAddress('not an address')).toBe(true)
  })
})
