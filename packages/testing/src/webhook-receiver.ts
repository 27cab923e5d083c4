/**
 * A local webhook receiver for the notification suites: it keeps every POST with its headers and
 * body, and answers 503 while told it is down, so retries can be watched.
 */
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface WebhookCall {
  at: number
  body: string
  headers: IncomingHttpHeaders
  /** The status the receiver answered. */
  status: number
}

export interface WebhookReceiver {
  url: string
  /** Every POST, answered or refused. */
  calls: WebhookCall[]
  /** The calls answered 200. */
  delivered(): WebhookCall[]
  /** While true, every POST is answered 503. */
  down: boolean
  close(): Promise<void>
}

/**
 * The `X-Fileshare-Signature` a call's body should carry: HMAC-SHA256 under the request's
 * notification key (raw, or base64url as the API hands it out), written out here as the check.
 */
export function webhookSignature(key: Uint8Array | string, body: string): string {
  const raw = typeof key === 'string' ? Buffer.from(key, 'base64url') : key
  return `sha256=${createHmac('sha256', raw).update(body).digest('hex')}`
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const calls: WebhookCall[] = []
  const receiver: WebhookReceiver = {
    url: '',
    calls,
    delivered: () => calls.filter((call) => call.status === 200),
    down: false,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const status = receiver.down ? 503 : 200
      calls.push({
        at: Date.now(),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: request.headers,
        status,
      })
      response.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return receiver
}

/** Waits until `ready()` holds, checking every 50 ms, for at most `timeoutMs`. */
export async function waitForNotice(ready: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a notification')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
