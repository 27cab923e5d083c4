/**
 * One info line per request: method, route pattern, status and duration. The pattern stands in
 * for the path, so ids, query strings, tokens and client IPs never reach the log.
 * May touch: the log (logger.ts).
 */
import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'

import type { Logger } from '../logger.js'

export function requestLog(logger: Pick<Logger, 'info'>): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now()
    let status = 500
    try {
      await next()
      status = c.res.status
    } finally {
      // The route that answered: the deepest handler reached, also when it threw. For a streamed
      // body, the time is until the response started, not until the last byte was sent.
      const route = routePath(c)
      const ms = Math.round(performance.now() - started)
      logger.info(`${c.req.method} ${route} ${status} ${ms}ms`)
    }
  }
}
