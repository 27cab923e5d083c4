/**
 * Sends notification mails through SMTP_URL with nodemailer. The mail names the request and the
 * size class only: the server has no file name and never the link's secret.
 */
import type { RequestNotification } from '@fileshare/protocol'
import { createTransport, type Transporter } from 'nodemailer'

export interface Mailer {
  send(to: string, notification: RequestNotification): Promise<void>
  close(): void
}

/** A mailer over the SMTP server at `smtpUrl`, sending as `from`. */
export function smtpMailer(smtpUrl: string, from: string, title: string): Mailer {
  // Short timeouts: a delivery must end well within the outbox's claim on its row.
  const transport: Transporter = createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  })
  return {
    async send(to, notification) {
      await transport.sendMail({
        from,
        to,
        subject: `${title}: a file arrived in your request`,
        text: [
          `A file arrived in your file request ${notification.requestId}.`,
          ``,
          `Time: ${notification.time}`,
          `Size: ${notification.sizeClass}`,
          ``,
          `Open your inbox link to download it.`,
        ].join('\n'),
      })
    },
    close: () => transport.close(),
  }
}
