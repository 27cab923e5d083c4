/**
 * Webhook delivery against a local receiver: the signature, the resolved-address guard, and the
 * caller's deadline against a receiver that never answers.
 */

import {
  startStallingWebhook,
  startWebhookReceiver,
  webhookSignature,
  type WebhookReceiver,
} from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { postWebhook } from '../src/notify/webhook.js'

const NOTIFICATION = {
  requestId: '11111111-1111-4111-8111-111111111111',
  time: '2026-01-02T03:04:05.000Z',
  sizeClass: '<1 MB',
} as const

/** A signal that never aborts, for the deliveries that end on their own. */
const OPEN = new AbortController().signal

describe('webhook delivery', () => {
  let hook: WebhookReceiver
  beforeAll(async () => {
    hook = await startWebhookReceiver()
  })
  afterAll(() => hook?.close())

  it('signs the exact body with HMAC-SHA256 under the request key', async () => {
    const secret = Buffer.alloc(32, 7)
    await postWebhook(hook.url, NOTIFICATION, secret, true, OPEN)
    const [call] = hook.calls
    expect(JSON.parse(call!.body)).toEqual(NOTIFICATION)
    expect(call!.headers['x-fileshare-signature']).toBe(webhookSignature(secret, call!.body))
  })

  it('refuses a host name that resolves to a loopback address', async () => {
    // Security: a name pointing at the server's own network is refused after resolution too.
    const url = hook.url.replace('127.0.0.1', 'localhost')
    const before = hook.calls.length
    await expect(postWebhook(url, NOTIFICATION, Buffer.alloc(32), false, OPEN)).rejects.toThrow(
      'resolves to a private address',
    )
    await expect(
      postWebhook(hook.url, NOTIFICATION, Buffer.alloc(32), false, OPEN),
    ).rejects.toThrow('private address')
    expect(hook.calls.length).toBe(before)
  })

  it('fails on an answer other than 2xx', async () => {
    hook.down = true
    await expect(postWebhook(hook.url, NOTIFICATION, Buffer.alloc(32), true, OPEN)).rejects.toThrow(
      'webhook answered 503',
    )
    hook.down = false
  })

  // Interim answers keep a connection busy; the deadline bounds the whole exchange regardless.
  it('ends at its deadline against a receiver that only ever answers 102 Processing', async () => {
    const stalling = await startStallingWebhook(200)
    try {
      const started = Date.now()
      const deadline = AbortSignal.timeout(1000)
      await expect(
        postWebhook(stalling.url, NOTIFICATION, Buffer.alloc(32), true, deadline),
      ).rejects.toThrow('aborted due to timeout')
      expect(Date.now() - started).toBeGreaterThanOrEqual(990)
      // The connection is closed, not left to the receiver.
      await stalling.reach({ opened: 1, closed: 1 })
    } finally {
      await stalling.close()
    }
  }, 20_000)
})
