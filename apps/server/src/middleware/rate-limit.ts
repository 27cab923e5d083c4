/**
 * The `/api` rate limit (spec: Limits): `X-RateLimit-*` headers on every answer and a 429 with
 * `Retry-After` beyond the limit.
 * May touch: the metrics registry; the counts through limits/.
 */
import { ERROR_MESSAGES, HEADERS } from '@fileshare/protocol'
import type { Context, MiddlewareHandler } from 'hono'

import { isDatabaseUnavailable } from '../db/unavailable.js'
import { recordRateLimitRefusal } from '../metrics/recorder.js'
import type { RateLimit, RateLimitResult } from '../limits/rate-limiter.js'
import { withHeaders } from './response-headers.js'

/** `X-RateLimit-*`, plus `Retry-After` on a refusal (recorded); the upload sockets use it too. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers = {
    [HEADERS.rateLimitLimit]: String(result.limit),
    [HEADERS.rateLimitRemaining]: String(result.remaining),
    [HEADERS.rateLimitReset]: String(result.resetSec),
  }
  if (result.allowed) return headers
  recordRateLimitRefusal()
  return { ...headers, [HEADERS.retryAfter]: String(result.retryAfterSec) }
}

/** Mounted only while the limit is on (RATE_LIMIT_MAX above 0); requests `skip` picks pass. */
export function rateLimit(
  limiter: RateLimit,
  ipOf: (c: Context) => string,
  skip?: (c: Context) => boolean | Promise<boolean>,
): MiddlewareHandler {
  const count: MiddlewareHandler = (c, next) => {
    const answer = (result: RateLimitResult): Promise<Response | void> => {
      // A refusal is labelled the way every other answer is, so the names keep the spec's
      // spelling (a Response's own headers go out in lower case).
      const refuse = async () => {
        c.res = c.json({ error: ERROR_MESSAGES.rateLimited }, 429)
      }
      return withHeaders(c, result.allowed ? next : refuse, rateLimitHeaders(result))
    }
    // The in-memory limit answers at once; only the shared one waits for the database.
    const result = limiter.hit(ipOf(c))
    if (!(result instanceof Promise)) return answer(result)
    return result.then(answer, (error: unknown) => {
      // With the database out of reach nothing is counted: the request goes on unlabelled, so
      // that /api/health can say so; a route that needs the database answers 503 itself.
      if (isDatabaseUnavailable(error)) return next()
      throw error
    })
  }
  if (!skip) return count
  return async (c, next) => ((await skip(c)) ? next() : count(c, next))
}
