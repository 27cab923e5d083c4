/**
 * A real SMTP server (smtp-server) for the notification suites, keeping every mail it takes; while
 * told it is down it refuses each recipient with a temporary error, so retries can be watched.
 */
import type { AddressInfo } from 'node:net'

import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  raw: string
}

export interface MailReceiver {
  url: string
  mails: ReceivedMail[]
  /** While true, every recipient is refused with 451. */
  down: boolean
  /** Recipients refused while down. */
  refused: number
  close(): Promise<void>
}

export async function startMailReceiver(): Promise<MailReceiver> {
  const mails: ReceivedMail[] = []
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!receiver.down) return callback()
      receiver.refused++
      callback(Object.assign(new Error('Try again later'), { responseCode: 451 }))
    },
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
  const receiver: MailReceiver = {
    url: '',
    mails,
    down: false,
    refused: 0,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  }
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const { port } = smtp.server.address() as AddressInfo
  receiver.url = `smtp://127.0.0.1:${port}`
  return receiver
}
