/**
 * Tells the operator that an abuse report was filed: one log line with its number, never its
 * reason or key, which stay in the database for `fileshare-admin reports show`. Mail goes out as
 * a digest of several reports (notify/abuse-digest.ts), not one per report.
 * May touch: the log (logger.ts).
 */
import type { Logger } from '../logger.js'
import type { Report } from '../ops/reports.js'

export function abuseNotifier(logger: Logger): (report: Report) => void {
  return function notifyAbuse(report: Report): void {
    logger.info(`abuse report #${report.id} filed; see fileshare-admin reports show ${report.id}`)
  }
}
