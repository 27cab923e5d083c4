/**
 * Tells the operator that an abuse report was filed: one log line, and with ABUSE_EMAIL (which
 * needs SMTP_URL) a mail. Both give the report's number and what it is about, never its reason
 * or key, which stay in the database for `fileshare-admin reports show`. It is called once per
 * stored report; a failed mail is logged by the caller without touching the reporter's answer.
 */
import type { Logger } from '../logger.js'
import type { Mailer } from './notify/email.js'
import { iso } from './request-records.js'
import type { Report } from './reports.js'

export interface AbuseMail {
  mailer: Mailer
  /** ABUSE_EMAIL. */
  to: string
  /** CUSTOM_TITLE, which names the service in the subject. */
  title: string
}

/** The subject and text of the notice of `report`. */
export function abuseReportMail(report: Report, title: string): { subject: string; text: string } {
  return {
    subject: `${title}: abuse report #${report.id}`,
    text: [
      `Abuse report #${report.id} was filed about ${report.targetId}.`,
      '',
      `Time: ${iso(report.createdAt)}`,
      `Key given: ${report.key === null ? 'no' : 'yes'}`,
      '',
      `See it with: fileshare-admin reports show ${report.id}`,
    ].join('\n'),
  }
}

export function abuseNotifier(
  logger: Logger,
  mail: AbuseMail | null = null,
): (report: Report) => Promise<void> {
  return async function notifyAbuse(report: Report): Promise<void> {
    logger.info(`abuse report #${report.id} filed; see fileshare-admin reports show ${report.id}`)
    if (mail === null) return
    const { subject, text } = abuseReportMail(report, mail.title)
    await mail.mailer.send(mail.to, subject, text)
  }
}
