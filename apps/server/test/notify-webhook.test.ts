/** Webhook delivery against a local receiver: the signature, and the resolved-address guard. */

import { startWebhookReceiver, webhookSignature, type WebhookReceiver } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { postWebhook } from '../src/services/notify/webhook.js'

const NOTIFICATION = {
  requestId: '11111111-1111-4111-8111-111111111111',
  time: '2026-01-02T03:04:05.000Z',
  sizeClass: '<1 MB',
} as const

describe('webhook delivery', () => {
  let hook: WebhookReceiver
  beforeAll(async () => {
    hook = await startWebhookReceiver()
  })
  afterAll(() => hook?.close())

  it('signs the exact body with HMAC-SHA256 under the request key', async () => {
    const secret = Buffer.alloc(32, 7)
    await postWebhook(hook.url, NOTIFICATION, secret, true)
    const [call] = hook.calls
    expect(JSON.parse(call!.body)).toEqual(NOTIFICATION)
    expect(call!.headers['x-fileshare-signature']).toBe(webhookSignature(secret, call!.body))
  })

  it('refuses a host name that resolves to a loopback address', async () => {
    // Security: a name pointing at the server's own network is refused after resolution too.
    const url = hook.url.replace('127.0.0.1', 'localhost')
    const before = hook.calls.length
    await expect(postWebhook(url, NOTIFICATION, Buffer.alloc(32), false)).rejects.toThrow(
      'resolves to a private address',
    )
    await expect(postWebhook(hook.url, NOTIFICATION, Buffer.alloc(32), false)).rejects.toThrow(
      'private address',
    )
    expect(hook.calls.length).toBe(before)
  })

  it('fails on an answer other than 2xx', async () => {
    hook.down = true
    await expect(postWebhook(hook.url, NOTIFICATION, Buffer.alloc(32), true)).rejects.toThrow(
      'webhook answered 503',
    )
    hook.down = false
  })
})
