/**
 * The abuse report route, this project's own (docs/api.md, Abuse reports): `POST /api/report/:id`.
 * The answer is the same whether the id exists or not.
 * May touch: nothing directly; through ops/reports.ts.
 */
import { ERROR_MESSAGES, REPORT_BODY_MAX_BYTES } from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import type { ReportsService } from '../ops/reports.js'
import { notJson, readJson } from './body.js'

export interface ReportRouteDeps {
  reports: ReportsService
  ipOf: (c: Context<AppEnv>) => string
}

export function reportRoutes(deps: ReportRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  app.post('/report/:id', async (c) => {
    const body = await readJson(c, REPORT_BODY_MAX_BYTES, ERROR_MESSAGES.invalidRequest, notJson)
    await deps.reports.file(c.req.param('id'), body, deps.ipOf(c))
    return c.json({ ok: true }, 201)
  })
  return app
}
