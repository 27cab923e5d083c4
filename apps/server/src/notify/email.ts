/**
 * Sends plain-text mails through SMTP_URL with nodemailer; callers compose the text, which never
 * holds a file name or a link secret.
 * May touch: the network (SMTP at SMTP_URL).
 */
import { createTransport, type Transporter } from 'nodemailer'

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
