/**
 * `GET /metrics` in Prometheus's text format (docs/operations.md, Metrics): the process's counters
 * and this server's gauges, behind METRICS_TOKEN when one is set, on the main port or on
 * METRICS_PORT at 127.0.0.1.
 * May touch: the metrics registry (metrics/recorder.ts); the network (the METRICS_PORT listener).
 */
import { timingSafeEqual } from 'node:crypto'

import { ERROR_MESSAGES, HEADERS, RECEIVED_HEADERS } from '@fileshare/protocol'
import { Hono, type Context, type Env, type MiddlewareHandler } from 'hono'
import { Registry } from 'prom-client'

import type { MetricsSettings } from '../config.js'
import { listen, type RunningServer } from '../listen.js'
import { hashToken } from '../access/tokens.js'
import { StartupFailure } from '../startup-failure.js'
import { instanceGauges, type InstanceGaugeDeps } from './instance-gauges.js'
import { acquireRecorder, recordHttpAnswer, routeFamily } from './recorder.js'

/** This project's answer to a scrape without the right METRICS_TOKEN (docs/operations.md). */
export const METRICS_TOKEN_MESSAGE = 'Invalid or missing metrics token'

/** Where a separate METRICS_PORT listens: this host only. */
export const METRICS_HOST = '127.0.0.1'

const BEARER = /^Bearer\s+(\S+)\s*$/i

export type ServerMetrics = ReturnType<typeof serverMetrics>

export function serverMetrics(settings: MetricsSettings, deps: InstanceGaugeDeps) {
  const recorder = acquireRecorder()
  const registry = Registry.merge([recorder.registry, instanceGauges(deps)])
  // Hashed once: each scrape compares two digests of equal length in constant time.
  const expected = settings.token === null ? null : hashToken(Buffer.from(settings.token))
  const authorized = (c: Context): boolean => {
    if (expected === null) return true
    const presented = BEARER.exec(c.req.header(RECEIVED_HEADERS.authorization) ?? '')?.[1]
    return presented !== undefined && timingSafeEqual(hashToken(Buffer.from(presented)), expected)
  }
  let server: RunningServer | undefined

  const mount = <E extends Env>(app: Hono<E>) => {
    app.get('/metrics', async (c) => {
      if (!authorized(c)) {
        return c.json({ error: METRICS_TOKEN_MESSAGE }, 401, { 'WWW-Authenticate': 'Bearer' })
      }
      return c.body(await registry.metrics(), 200, { [HEADERS.contentType]: registry.contentType })
    })
  }

  /** Counts each HTTP answer and its latency by route family. */
  const middleware: MiddlewareHandler = async (c, next) => {
    const started = performance.now()
    await next()
    recordHttpAnswer(routeFamily(c.req.path), c.res.status, (performance.now() - started) / 1000)
  }

  return {
    middleware,
    /** Whether `/metrics` is answered on the main port (no METRICS_PORT). */
    onMainPort: settings.port === null,
    mount,
    /** Starts the METRICS_PORT listener when there is one; answers its address. */
    async listen(): Promise<string | undefined> {
      if (settings.port === null) return undefined
      const app = new Hono()
      mount(app)
      app.notFound((c) => c.json({ error: ERROR_MESSAGES.notFound }, 404))
      try {
        server = await listen(app, { port: settings.port, host: METRICS_HOST })
      } catch (error) {
        // The start-up line names this port's variable, not PORT (startup-failure.ts).
        const code = (error as NodeJS.ErrnoException).code ?? String(error)
        throw new StartupFailure(
          `cannot listen on METRICS_PORT ${settings.port} at ${METRICS_HOST}: ${code}`,
          { cause: error },
        )
      }
      return server.url
    },
    async close() {
      recorder.release()
      await server?.close()
    },
  }
}
