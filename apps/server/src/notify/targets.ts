/**
 * Checks the `notifyWebhook` of `POST /api/request`: https (plain http only to hosts the operator
 * lists), to no private or loopback host unless NOTIFY_ALLOW_PRIVATE is on. This refuses what is
 * wrong on its face; the delivery checks resolved addresses (webhook.ts).
 * May touch: nothing (pure).
 */
import { isIP } from 'node:net'

import type { NotifySettings } from '../config.js'
import { isPrivateAddress } from './private-address.js'

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
