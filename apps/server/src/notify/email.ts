/**
 * Notification mail: the syntax and length of an address (a request's `notifyEmail`, and
 * ABUSE_EMAIL at startup), and plain-text mails sent through SMTP_URL with nodemailer; callers
 * compose the text, which never holds a file name or a link secret.
 * May touch: the network (SMTP at SMTP_URL).
 */
import { createTransport, type Transporter } from 'nodemailer'

/** RFC 5321 §4.5.3.1.3: a path is at most 256 octets, so an address at most 254. */
export const NOTIFY_EMAIL_MAX_LENGTH = 254

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/

/** A notification address, or an Error whose message says what is wrong. */
export function parseNotifyEmail(value: unknown): string {
  if (typeof value !== 'string') throw new Error('must be a string')
  if (value.length > NOTIFY_EMAIL_MAX_LENGTH) {
    throw new Error(`must be at most ${NOTIFY_EMAIL_MAX_LENGTH} characters`)
  }
  if (!EMAIL.test(value) || value.includes('..') || value.startsWith('.')) {
    throw new Error('must be an email address')
  }
  return value
}

export interface Mailer {
  send(to: string, subject: string, text: string): Promise<void>
  close(): void
}

export function smtpMailer(smtpUrl: string, from: string): Mailer {
  // Short timeouts: a delivery must end well within the outbox's claim on its row.
  const transport: Transporter = createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  })
  return {
    async send(to, subject, text) {
      await transport.sendMail({ from, to, subject, text })
    },
    close: () => transport.close(),
  }
}
