/** Service-level routes that need no credential (spec: GET /api/health). */
import { Hono } from 'hono'

export interface SystemRouteDeps {
  version: string
  now: () => Date
}

export function systemRoutes(deps: SystemRouteDeps): Hono {
  return new Hono().get('/health', (c) =>
    c.json({ status: 'ok', version: deps.version, timestamp: deps.now().toISOString() }),
  )
}
