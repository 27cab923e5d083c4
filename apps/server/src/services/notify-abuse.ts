/**
 * Tells the operator that an abuse report was filed. Today it writes one log line (the report's
 * number only: its reason and key stay in the database). Mail to ABUSE_EMAIL comes with SMTP_URL,
 * which this function is the place for: it is called once per stored report, and its failure is
 * logged without touching the reporter's answer.
 */
import type { Logger } from '../logger.js'
import type { Report } from './reports.js'

export function abuseNotifier(logger: Logger): (report: Report) => Promise<void> {
  return async function notifyAbuse(report: Report): Promise<void> {
    logger.info(`abuse report #${report.id} filed; see fileshare-admin reports show ${report.id}`)
  }
}
