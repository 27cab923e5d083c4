/**
 * `fileshare-admin reports`: lists abuse reports, shows one (with the link to open the content
 * when the reporter included the key) and resolves or dismisses it.
 * May touch: nothing directly; through ops/reports.ts and ops/inventory.ts.
 */
import { LINK_PATH_SEGMENTS } from '@fileshare/protocol'

import { REPORT_STATUSES, type Report, type ReportStatus } from '../../ops/reports.js'
import { AdminError, ADMIN_EXIT } from '../admin-error.js'
import type { AdminContext } from '../context.js'
import { isoOrNull, oneLine, table, time, type CommandOutput } from '../output.js'

/** A report as listed: whether it carries a key, never the key itself. */
function reportJson(report: Report): Record<string, unknown> {
  const { key, ...rest } = report
  return {
    ...rest,
    hasKey: key !== null,
    createdAt: isoOrNull(report.createdAt),
    closedAt: isoOrNull(report.closedAt),
  }
}

export async function listReportsCommand(
  ctx: AdminContext,
  options: { status: string },
): Promise<CommandOutput> {
  const status = options.status === 'all' ? undefined : options.status
  if (status !== undefined && !REPORT_STATUSES.includes(status as ReportStatus)) {
    throw new AdminError(`--status must be all or one of ${REPORT_STATUSES.join(', ')}`)
  }
  const reports = await ctx.services.reports.list(status as ReportStatus | undefined)
  const text = table(
    ['#', 'STATUS', 'FILED', 'ID', 'KEY', 'REASON'],
    reports.map((r) => [
      String(r.id),
      r.status,
      time(r.createdAt),
      r.targetId,
      r.key === null ? 'no' : 'yes',
      truncate(oneLine(r.reason), 60),
    ]),
  )
  return { json: { reports: reports.map(reportJson) }, text }
}

export async function showReportCommand(ctx: AdminContext, n: string): Promise<CommandOutput> {
  const report = await ctx.services.reports.get(reportNumber(n))
  if (!report) throw new AdminError(`no report ${n}`, ADMIN_EXIT.notFound)
  const target = await ctx.inventory.find(report.targetId)
  const state = target === undefined ? 'unknown' : target.removed ? 'removed' : 'stored'
  // The key opens the content in a browser; without it the operator sees sizes and times only.
  const link =
    report.key !== null && target !== undefined
      ? `${ctx.config.baseUrl}/${LINK_PATH_SEGMENTS[target.kind === 'upload' ? 'file' : target.kind]}/${report.targetId}#${report.key}`
      : null
  const json = { report: { ...reportJson(report), target: { ...target, state }, link } }
  const text = [
    `report #${report.id} (${report.status}), filed ${time(report.createdAt)}`,
    `item    ${report.targetId}: ${target ? `${target.kind}, ${state}` : 'unknown id'}`,
    `reason  ${oneLine(report.reason)}`,
    link !== null
      ? `open    ${link}`
      : report.key !== null
        ? 'open    the key was given, but the item is unknown'
        : 'open    no key given: the content cannot be opened',
  ].join('\n')
  return { json, text }
}

export async function closeReportCommand(
  ctx: AdminContext,
  n: string,
  status: 'resolved' | 'dismissed',
): Promise<CommandOutput> {
  const id = reportNumber(n)
  if (!(await ctx.services.reports.close(id, status))) {
    throw new AdminError(`no open report ${n}`, ADMIN_EXIT.notFound)
  }
  return { json: { report: { id, status } }, text: `report #${id} ${status}` }
}

function reportNumber(text: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) throw new AdminError(`not a report number: ${text}`)
  return Number(text)
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
