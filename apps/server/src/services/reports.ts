/**
 * Abuse reports (`POST /api/report/:id`, `fileshare-admin reports`): filed by anyone holding a
 * link, stored for the operator, never telling the reporter whether the id exists (the answer is
 * the same either way). Nothing of the reporter is kept: the per-IP limit counts in memory, or
 * under the daily HMAC of the IP on PostgreSQL (limits/).
 */
import {
  ERROR_MESSAGES,
  REPORT_REASON_MAX_CHARS,
  SECRET_SIZE,
  fromBase64Url,
  isUuid,
} from '@fileshare/protocol'
import { and, count, desc, eq } from 'drizzle-orm'

import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { RateLimit } from './limits/rate-limiter.js'
import { invalid } from './validation.js'

export type ReportStatus = 'open' | 'resolved' | 'dismissed'

export const REPORT_STATUSES: readonly ReportStatus[] = ['open', 'resolved', 'dismissed']

export interface Report {
  /** The number the operator refers to it by. */
  id: number
  targetId: string
  reason: string
  /** The link secret, when the reporter chose to include it. */
  key: string | null
  status: ReportStatus
  createdAt: number
  closedAt: number | null
}

/** Reports waiting for the operator beyond which new ones are refused, so the table stays bounded. */
export const MAX_OPEN_REPORTS = 10_000

/** A link's fragment: a version byte, a flags byte and the secret (protocol's crypto/link.ts). */
const KEY_BYTES = 2 + SECRET_SIZE

export interface ReportsDeps {
  db: Db
  /** Reports per IP and window (REPORT_RATE_LIMIT_MAX), on top of the `/api` rate limit. */
  limiter: RateLimit
  now: () => number
  /** Tells the operator of a new report (notify-abuse.ts). */
  notify: (report: Report) => Promise<void>
  onError: (error: unknown) => void
}

export class ReportsService {
  constructor(private readonly deps: ReportsDeps) {}

  /**
   * Files a report on `targetId`, whatever it names: 400 for a malformed id or body, 429 past the
   * IP's report limit or with too many reports open.
   */
  async file(targetId: string, body: unknown, clientIp: string): Promise<Report> {
    if (!isUuid(targetId)) throw invalid({ id: 'must be a UUID' })
    const { reason, key } = parseReport(body)
    const limit = await this.deps.limiter.hit(`report:${clientIp}`)
    if (!limit.allowed) {
      throw new HttpError(429, ERROR_MESSAGES.rateLimited, {
        headers: { 'Retry-After': String(limit.retryAfterSec) },
      })
    }
    const { reports } = this.deps.db.tables
    const [open] = await this.deps.db.query
      .select({ n: count() })
      .from(reports)
      .where(eq(reports.status, 'open'))
    if ((open?.n ?? 0) >= MAX_OPEN_REPORTS) throw new HttpError(429, ERROR_MESSAGES.rateLimited)
    const [report] = await this.deps.db.query
      .insert(reports)
      .values({ targetId, reason, key, status: 'open', createdAt: this.deps.now() })
      .returning()
    const filed = report as Report
    // The reporter's answer does not wait for the operator's mail, nor fail with it.
    this.deps.notify(filed).catch(this.deps.onError)
    return filed
  }

  /** Reports, newest first; only those of `status` when given. */
  async list(status?: ReportStatus): Promise<Report[]> {
    const { reports } = this.deps.db.tables
    const rows = await this.deps.db.query
      .select()
      .from(reports)
      .where(status === undefined ? undefined : eq(reports.status, status))
      .orderBy(desc(reports.id))
    return rows as Report[]
  }

  async get(id: number): Promise<Report | undefined> {
    const { reports } = this.deps.db.tables
    const [row] = await this.deps.db.query.select().from(reports).where(eq(reports.id, id))
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

/** The body `{ reason, key? }`: a reason of 1 to 2,000 characters, a key as a link's secret. */
function parseReport(body: unknown): { reason: string; key: string | null } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid({ body: 'must be a JSON object' })
  }
  const { reason, key, ...rest } = body as Record<string, unknown>
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw invalid({ [unknown[0]!]: 'is not a known field' })
  const text = typeof reason === 'string' ? reason.trim() : ''
  if (text.length === 0 || [...text].length > REPORT_REASON_MAX_CHARS) {
    throw new HttpError(400, ERROR_MESSAGES.reportReasonInvalid, {
      details: { reason: `must be 1 to ${REPORT_REASON_MAX_CHARS} characters` },
    })
  }
  if (key === undefined || key === null) return { reason: text, key: null }
  if (typeof key !== 'string' || !isLinkSecret(key)) {
    throw new HttpError(400, ERROR_MESSAGES.reportKeyInvalid, {
      details: { key: 'must be the part of the link after #' },
    })
  }
  return { reason: text, key }
}

function isLinkSecret(key: string): boolean {
  try {
    fromBase64Url(key, { canonical: true, bytes: KEY_BYTES })
    return true
  } catch {
    return false
  }
}
