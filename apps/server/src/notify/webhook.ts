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
import { isIP, type LookupFunction } from 'node:net'

import {
  NOTIFICATION_SIGNATURE_HEADER,
  RECEIVED_HEADERS,
  type RequestNotification,
} from '@fileshare/protocol'

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
