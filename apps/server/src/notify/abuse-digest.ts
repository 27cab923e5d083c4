/**
 * The digest of new abuse reports mailed to ABUSE_EMAIL by the cleanup job's leader: at most one
 * per ABUSE_DIGEST_INTERVAL_SEC, naming the open reports no digest has named (never a reason or
 * key). They are claimed with a lease by one conditional update and marked once the mail is out,
 * so a failed send leaves them for the next digest and a lost marking names them again.
 * May touch: table reports; mail through email.ts.
 */
import { and, eq, inArray, isNull, lte, max } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import type { Report } from '../ops/reports.js'
import { iso } from '../requests/request-records.js'
import type { Mailer } from './email.js'

/** How long a claim holds the reports of a digest; longer than a send may take. */
export const DIGEST_LEASE_MS = 2 * 60_000

/** Reports listed one per line in a digest; the rest are counted. */
export const DIGEST_MAX_LISTED = 100

type DigestedReport = Pick<Report, 'id' | 'targetId' | 'createdAt' | 'key'>

export interface AbuseDigestDeps {
  db: Db
  mailer: Mailer
  /** ABUSE_EMAIL. */
  to: string
  /** CUSTOM_TITLE, which names the service in the subject. */
  title: string
  /** ABUSE_DIGEST_INTERVAL_SEC, in milliseconds. */
  intervalMs: number
  now: () => number
}

/** The subject and text of the digest of `reports` (by number, oldest first). */
export function abuseDigestMail(
  reports: readonly DigestedReport[],
  title: string,
): { subject: string; text: string } {
  const listed = reports
    .slice(0, DIGEST_MAX_LISTED)
    .map(
      (report) =>
        `#${report.id}  ${iso(report.createdAt)}  ${report.targetId}  key given: ${report.key === null ? 'no' : 'yes'}`,
    )
  const rest = reports.length - listed.length
  const count = reports.length === 1 ? '1 new abuse report' : `${reports.length} new abuse reports`
  return {
    subject: `${title}: ${count}`,
    text: [
      `${count} filed since the last notice:`,
      '',
      ...listed,
      ...(rest > 0 ? [`and ${rest} more`] : []),
      '',
      'See them with: fileshare-admin reports',
    ].join('\n'),
  }
}

export class AbuseDigest {
  constructor(private readonly deps: AbuseDigestDeps) {}

  /** Mails the digest unless one went out within an interval; answers how many reports it named. */
  async send(): Promise<number> {
    const { db, mailer, now } = this.deps
    const { reports } = db.tables
    const { id, targetId, createdAt, key } = reports
    const time = now()
    const [last] = await db.query.select({ at: max(reports.mailedAt) }).from(reports)
    if (last?.at != null && last.at > time - this.deps.intervalMs) return 0
    const lease = time + DIGEST_LEASE_MS
    const claimed = await db.query
      .update(reports)
      .set({ mailLeaseUntil: lease })
      .where(
        and(
          isNull(reports.mailedAt),
          eq(reports.status, 'open'),
          lte(reports.mailLeaseUntil, time),
        ),
      )
      .returning({ id, targetId, createdAt, key })
    if (claimed.length === 0) return 0
    claimed.sort((a, b) => a.id - b.id)
    const ids = claimed.map((report) => report.id)
    const mine = and(inArray(reports.id, ids), eq(reports.mailLeaseUntil, lease))
    const { subject, text } = abuseDigestMail(claimed, this.deps.title)
    try {
      await mailer.send(this.deps.to, subject, text)
    } catch (error) {
      await db.query.update(reports).set({ mailLeaseUntil: 0 }).where(mine)
      throw error
    }
    await db.query.update(reports).set({ mailedAt: time }).where(mine)
    return claimed.length
  }
}
