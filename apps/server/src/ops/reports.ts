/**
 * Abuse reports (`POST /api/report/:id`, `fileshare-admin reports`): filed by anyone holding a
 * link, stored for the operator, never telling the reporter whether the id exists. A reporter
 * counts as its network (IPv4 /24, IPv6 /48) against a rate and a daily limit, so that no network
 * fills the open reports alone; nothing of the reporter is kept with a report.
 * May touch: tables reports, request_daily_counts (through limits/daily-counts.ts); the log.
 */
import {
  ERROR_MESSAGES,
  REPORT_REASON_MAX_CHARS,
  SECRET_SIZE,
  canonicalToken,
  isUuid,
} from '@fileshare/protocol'
import { and, count, desc, eq } from 'drizzle-orm'

import { lockCount, type Db } from '../db/client.js'
import type { reports } from '../db/schema-pg.js'
import { HttpError, tooManyRequests } from '../http-error.js'
import type { Logger } from '../logger.js'
import { reporterNetwork } from '../middleware/client-ip.js'
import { countToday } from '../limits/daily-counts.js'
import type { DailyIpHash } from '../limits/quota.js'
import type { RateLimit } from '../limits/rate-limiter.js'
import { invalid, isJsonObject } from '../validation.js'

export type ReportStatus = 'open' | 'resolved' | 'dismissed'

export const REPORT_STATUSES: readonly ReportStatus[] = ['open', 'resolved', 'dismissed']

/** A report as filed: `id` is the number the operator knows it by, `key` the link's secret. */
export type Report = Omit<typeof reports.$inferSelect, 'status' | 'mailedAt' | 'mailLeaseUntil'> & {
  status: ReportStatus
}

/** Open reports beyond which new ones are refused, so the table stays bounded. */
export const MAX_OPEN_REPORTS = 10_000

/** The wait a reporter is told while that many are open: the operator works through them. */
const OPEN_REPORTS_RETRY_SEC = 3600

/** First key of the PostgreSQL advisory lock that serialises counting the open reports. */
const OPEN_REPORTS_LOCK_CLASS = 0x72_65_70

/** A link's fragment: a version byte, a flags byte and the secret (protocol's crypto/link.ts). */
const KEY_BYTES = 2 + SECRET_SIZE

export interface ReportsDeps {
  db: Db
  /** Reports per network and window (REPORT_RATE_LIMIT_MAX), on top of the `/api` rate limit. */
  limiter: RateLimit
  /** Reports per network and UTC day (REPORT_DAILY_LIMIT); 0 for no limit. */
  dailyLimit: number
  ipHash: DailyIpHash
  now: () => number
  /** Tells the operator of each new report by its number, never its reason or key. */
  logger: Logger
}

export class ReportsService {
  constructor(private readonly deps: ReportsDeps) {}

  /**
   * Files a report on `targetId`, whatever it names: 400 malformed, 429 past the network's limits
   * or with too many open. Count, check and report are one transaction: a refusal counts nothing.
   */
  async file(targetId: string, body: unknown, clientIp: string): Promise<Report> {
    if (!isUuid(targetId)) throw invalid({ id: 'must be a UUID' })
    const { reason, key } = parseReport(body)
    const network = reporterNetwork(clientIp)
    const limit = await this.deps.limiter.hit(`report:${network}`)
    if (!limit.allowed) throw tooManyRequests(ERROR_MESSAGES.rateLimited, limit.retryAfterSec)
    const { db, dailyLimit, ipHash } = this.deps
    const { reports } = db.tables
    const now = this.deps.now()
    const filed = await db.transaction(async (tx) => {
      if (dailyLimit > 0) {
        const client = `report:${ipHash.of(network, now)}`
        const wait = await countToday(tx, db.tables, client, dailyLimit, now)
        if (wait !== null) throw tooManyRequests(ERROR_MESSAGES.rateLimited, wait)
      }
      // Reports filed at once would otherwise all count the same open ones.
      await lockCount(db, tx, OPEN_REPORTS_LOCK_CLASS, 'open')
      const [open] = await tx.select({ n: count() }).from(reports).where(eq(reports.status, 'open'))
      if ((open?.n ?? 0) >= MAX_OPEN_REPORTS)
        throw tooManyRequests(ERROR_MESSAGES.rateLimited, OPEN_REPORTS_RETRY_SEC)
      const [report] = await tx
        .insert(reports)
        .values({ targetId, reason, key, status: 'open', createdAt: now })
        .returning(reportColumns(db))
      return report as Report
    })
    const { id } = filed
    this.deps.logger.info(`abuse report #${id} filed; see fileshare-admin reports show ${id}`)
    return filed
  }

  /** Reports, newest first; only those of `status` when given. */
  async list(status?: ReportStatus): Promise<Report[]> {
    const { reports } = this.deps.db.tables
    const rows = await this.deps.db.query
      .select(reportColumns(this.deps.db))
      .from(reports)
      .where(status === undefined ? undefined : eq(reports.status, status))
      .orderBy(desc(reports.id))
    return rows as Report[]
  }

  async get(id: number): Promise<Report | undefined> {
    const { reports } = this.deps.db.tables
    const [row] = await this.deps.db.query
      .select(reportColumns(this.deps.db))
      .from(reports)
      .where(eq(reports.id, id))
    return row as Report | undefined
  }

  /** Marks an open report resolved or dismissed; false when there is no open report `id`. */
  async close(id: number, status: 'resolved' | 'dismissed'): Promise<boolean> {
    const { reports } = this.deps.db.tables
    const closed = await this.deps.db.query
      .update(reports)
      .set({ status, closedAt: this.deps.now() })
      .where(and(eq(reports.id, id), eq(reports.status, 'open')))
      .returning({ id: reports.id })
    return closed.length > 0
  }
}

/** The columns of a `Report`: not the digest's bookkeeping (notify/abuse-digest.ts). */
function reportColumns(db: Db) {
  const { id, targetId, reason, key, status, createdAt, closedAt } = db.tables.reports
  return { id, targetId, reason, key, status, createdAt, closedAt }
}

/** The body `{ reason, key? }`: a reason of 1 to 2,000 characters, a key as a link's secret. */
function parseReport(body: unknown): { reason: string; key: string | null } {
  if (!isJsonObject(body)) throw invalid({ body: 'must be a JSON object' })
  const { reason, key, ...rest } = body
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw invalid({ [unknown[0]!]: 'is not a known field' })
  const text = typeof reason === 'string' ? reason.trim() : ''
  if (text.length === 0 || [...text].length > REPORT_REASON_MAX_CHARS) {
    throw new HttpError(400, ERROR_MESSAGES.reportReasonInvalid, {
      details: { reason: `must be 1 to ${REPORT_REASON_MAX_CHARS} characters` },
    })
  }
  if (key === undefined || key === null) return { reason: text, key: null }
  if (canonicalToken(key, KEY_BYTES) === null) {
    throw new HttpError(400, ERROR_MESSAGES.reportKeyInvalid, {
      details: { key: 'must be the part of the link after #' },
    })
  }
  return { reason: text, key: key as string }
}
