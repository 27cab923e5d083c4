/**
 * `GET /metrics` in Prometheus's text format (docs/operations.md, Metrics): the process's counters
 * and this server's gauges, behind METRICS_TOKEN when one is set, on the main port or on
 * METRICS_PORT at 127.0.0.1. The gauges are read at each scrape: upload sessions this server holds
 * in memory, and what the database holds (stored bytes and items, upload quota in use, chunked
 * sessions kept there), the same on every instance that shares it.
 * May touch: tables uploads, notes, file_requests, request_uploads, upload_quota,
 * upload_sessions (read only); the metrics registry (metrics/recorder.ts); the log; the network
 * (the METRICS_PORT listener).
 */
import { timingSafeEqual } from 'node:crypto'

import { ERROR_MESSAGES, HEADERS, RECEIVED_HEADERS } from '@fileshare/protocol'
import { count, eq, sql } from 'drizzle-orm'
import { Hono, type Context, type Env, type MiddlewareHandler } from 'hono'
import { Gauge, Registry } from 'prom-client'

import { hashToken } from '../access/tokens.js'
import type { MetricsSettings } from '../config.js'
import type { Db } from '../db/client.js'
import { listen, type RunningServer } from '../listen.js'
import type { Logger } from '../logger.js'
import type { UploadSessions } from '../sessions/upload-sessions.js'
import { StartupFailure } from '../startup-failure.js'
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

export interface InstanceGaugeDeps {
  db: Db
  sessions: Pick<UploadSessions, 'size'>
  /** FILE_UPLOAD_QUOTA_BYTES and its window (FILE_UPLOAD_QUOTA_WINDOW) in seconds. */
  quotaBytes: number
  quotaWindowSec: number
  now: () => number
  logger: Pick<Logger, 'warn'>
}

type Snapshot = Awaited<ReturnType<typeof readSnapshot>>

const total = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number)

async function readSnapshot(deps: InstanceGaugeDeps) {
  const { db } = deps
  const { uploads, requestUploads, notes, fileRequests, uploadQuota, uploadSessions } = db.tables
  const windowMs = deps.quotaWindowSec * 1000
  const windowStart = Math.floor(deps.now() / windowMs) * windowMs
  const inWindow = eq(uploadQuota.windowStart, windowStart)
  const [[files], [inRequests], [noteCount], [requestCount], [quota], [stored]] = await Promise.all(
    [
      db.query.select({ items: count(), bytes: total(uploads.size) }).from(uploads),
      db.query.select({ items: count(), bytes: total(requestUploads.size) }).from(requestUploads),
      db.query.select({ items: count() }).from(notes),
      db.query.select({ items: count() }).from(fileRequests),
      db.query
        .select({
          used: total(sql`case when ${inWindow} then ${uploadQuota.bytes} else 0 end`),
          held: total(uploadQuota.held),
        })
        .from(uploadQuota),
      db.query
        .select({ items: count() })
        .from(uploadSessions)
        .where(eq(uploadSessions.transport, 'chunks')),
    ],
  )
  return {
    uploads: files!,
    requestUploads: inRequests!,
    notes: noteCount!.items,
    requests: requestCount!.items,
    quotaUsed: quota!.used,
    quotaHeld: quota!.held,
    storedSessions: stored!.items,
  }
}

/** A registry of this server's gauges, filled at each scrape. */
export function instanceGauges(deps: InstanceGaugeDeps): Registry {
  const registry = new Registry()
  const registers = [registry]
  // A scrape collects every gauge at once: they share the one read under way.
  let pending: Promise<Snapshot | undefined> | undefined
  const snapshot = (): Promise<Snapshot | undefined> => {
    pending ??= readSnapshot(deps)
      // A database out of reach leaves its gauges out of the scrape rather than failing it.
      .catch((error: unknown) => {
        deps.logger.warn(`metrics: the database figures could not be read: ${String(error)}`)
        return undefined
      })
      .finally(() => {
        pending = undefined
      })
    return pending
  }
  /** A gauge set from the snapshot: one value, or one per `kind`. */
  const fromDatabase = (
    name: string,
    help: string,
    value: (s: Snapshot) => number | Record<string, number>,
  ) =>
    new Gauge<'kind'>({
      name,
      help,
      labelNames: ['kind'],
      registers,
      async collect() {
        this.reset()
        const taken = await snapshot()
        if (taken === undefined) return
        const values = value(taken)
        if (typeof values === 'number') this.set(values)
        else for (const [kind, v] of Object.entries(values)) this.set({ kind }, v)
      },
    })

  new Gauge({
    name: 'fileshare_upload_sessions_active',
    help: 'Upload sessions this instance holds in memory (socket and single-request).',
    registers,
    collect() {
      this.set(deps.sessions.size)
    },
  })
  fromDatabase(
    'fileshare_upload_sessions_stored',
    'Chunked upload sessions, kept in the database; the same on every instance.',
    (s) => s.storedSessions,
  )
  fromDatabase(
    'fileshare_storage_used_bytes',
    'Ciphertext bytes of stored uploads and of uploads in requests; the same on every instance.',
    (s) => ({ uploads: s.uploads.bytes, request_uploads: s.requestUploads.bytes }),
  )
  fromDatabase(
    'fileshare_stored_items',
    'Uploads, notes, requests and uploads in requests stored; the same on every instance.',
    (s) => ({
      uploads: s.uploads.items,
      notes: s.notes,
      requests: s.requests,
      request_uploads: s.requestUploads.items,
    }),
  )
  fromDatabase(
    'fileshare_upload_quota_used_bytes',
    'Bytes counted against the upload quota in its current window, all clients together.',
    (s) => s.quotaUsed,
  )
  fromDatabase(
    'fileshare_upload_quota_held_bytes',
    'Bytes held against the upload quota by uploads still running, all clients together.',
    (s) => s.quotaHeld,
  )
  new Gauge({
    name: 'fileshare_upload_quota_limit_bytes',
    help: 'FILE_UPLOAD_QUOTA_BYTES: bytes each client may upload per window; 0 when off.',
    registers,
  }).set(deps.quotaBytes)
  return registry
}
