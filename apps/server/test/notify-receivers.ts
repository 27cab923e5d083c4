/**
 * What the notification suites listen with: a real SMTP server (smtp-server) that keeps every
 * mail, and a local webhook receiver that keeps every POST and can be told to answer 503.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  raw: string
}

export interface MailReceiver {
  url: string
  mails: ReceivedMail[]
  close(): Promise<void>
}

export async function startMailReceiver(): Promise<MailReceiver> {
  const mails: ReceivedMail[] = []
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const { port } = smtp.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  }
}

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
export async function waitFor(ready: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a notification')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
