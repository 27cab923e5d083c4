/**
 * Builds the HTTP application: middleware, the API routes, the web app and one error handler.
 * May touch: the database and the blob store for the health check only; the file system (whether
 * the web app's folder exists); the log; the rest through the routes.
 */
import { existsSync } from 'node:fs'

import { ERROR_MESSAGES, HEADERS } from '@fileshare/protocol'
import { Hono, type Context } from 'hono'
import { HTTPException } from 'hono/http-exception'

import type { AppEnv } from './app-env.js'
import type { Config, ServiceName } from './config.js'
import { databaseAnswers, type Db } from './db/client.js'
import { isDatabaseUnavailable } from './db/unavailable.js'
import { isStorageUnavailable } from './storage/unavailable.js'
import type { CreationGuard } from './auth/creation-guard.js'
import { HttpError } from './http-error.js'
import type { Logger } from './logger.js'
import type { ServerMetrics } from './metrics/endpoint.js'
import { clientIp } from './middleware/client-ip.js'
import { rateLimit } from './middleware/rate-limit.js'
import { requestLog } from './middleware/request-log.js'
import { setAnswerHeaders } from './middleware/response-headers.js'
import { fileRoutes } from './routes/files.js'
import { inboxRoutes } from './routes/inbox.js'
import { notesRoutes } from './routes/notes.js'
import { reportRoutes } from './routes/reports.js'
import { requestRoutes } from './routes/requests.js'
import { systemRoutes } from './routes/system.js'
import { uploadRoutes } from './routes/uploads.js'
import type { Services } from './composition/container.js'
import type { BlobStore } from './storage/blob-store.js'
import { mountWebApp } from './web-app.js'
import type { WebcatFiles } from './web-integrity.js'

export interface AppDeps {
  config: Config
  version: string
  db: Db
  blobs: BlobStore
  services: Services
  logger: Logger
  now: () => number
  /** Who may create content; the same guard checks the upload sockets (server.ts). */
  guard: CreationGuard
  /** The `/auth` and API token routes when login is on (auth/login.ts). */
  login: { routes: Hono<AppEnv>; tokenRoutes: Hono<AppEnv> | undefined } | null
  /** Folder of the built web app; the app is not served when it is absent or does not exist. */
  webRoot?: string | undefined
  webcatFiles?: WebcatFiles | undefined
  /** True once shutdown has begun (`GET /api/ready` then answers 503). */
  draining: () => boolean
  /** Counts answers, and serves `/metrics` unless METRICS_PORT does; absent while metrics are off. */
  metrics?: ServerMetrics | undefined
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { config, services, logger, guard, now } = deps
  const { rateLimiter, uploads, notes, requests, inbox, sessionStatus } = services
  const app = new Hono<AppEnv>()
  const ipOf = (c: Context<AppEnv>) => clientIp(c, config.trustedProxies)
  const headers = (c: Context<AppEnv>) => (name: string) => c.req.header(name)
  const requireLogin = (service: ServiceName) => async (c: Context<AppEnv>) => {
    await guard(service, headers(c))
  }
  const requestsEnabled = config.enabledServices.includes('request')

  // The security headers are put on every answer by the HTTP server (server.ts, listen.ts).
  // Middleware that would do nothing is not mounted, so requests do not pass through it.
  if (logger.enabled?.('info') ?? true) app.use('*', requestLog(logger))
  // Before the answer counter, so scrapes count as no answer; outside /api, so no rate limit.
  if (deps.metrics?.onMainPort) deps.metrics.mount(app)
  if (deps.metrics) app.use('*', deps.metrics.middleware)
  if (rateLimiter.enabled) {
    app.use(
      '/api/*',
      rateLimit(rateLimiter, ipOf, (c) => isRequestChunk(c, requests)),
    )
  }

  app.route(
    '/api',
    systemRoutes({
      config,
      version: deps.version,
      now: () => new Date(now()),
      quota: services.quota,
      ipOf,
      checkHealth: async () => {
        const [database, storage] = await Promise.all([
          databaseAnswers(deps.db),
          deps.blobs.check().then(
            () => true,
            () => false,
          ),
        ])
        return { database, storage }
      },
      draining: deps.draining,
    }),
  )
  app.route('/api', uploadRoutes({ ...services, ipOf, requireLogin: requireLogin('file') }))
  app.route('/api', fileRoutes({ uploads, ipOf, logger }))
  app.route(
    '/api',
    notesRoutes({
      notes,
      ipOf,
      // Twice the largest note's base64 with room for the other fields, since JSON may escape
      // base64 characters (`\/` for `/`); the note service checks the decoded size (413).
      bodyLimit: 2 * Math.ceil(((config.noteMaxSize + 256) * 4) / 3) + 16 * 1024,
      requireLogin: requireLogin('note'),
    }),
  )
  app.route(
    '/api/request',
    requestRoutes({
      requests,
      enabled: requestsEnabled,
      ipOf,
      sessionStatus,
      // With OIDC_PROTECT_REQUESTS the daily limit counts per login user, otherwise per IP.
      creator: async (c) => (await guard('request', headers(c)))?.sub ?? null,
      login: async (c) => (await guard('request', headers(c), { identify: true }))?.sub ?? null,
    }),
  )
  app.route('/api/inbox', inboxRoutes({ inbox, enabled: requestsEnabled, ipOf, logger }))
  app.route('/api', reportRoutes({ reports: services.reports, ipOf }))

  if (deps.login?.tokenRoutes) app.route('/api', deps.login.tokenRoutes)

  if (deps.login) {
    // The callback makes the server call the provider, so the login shares the API's per-IP limit.
    if (rateLimiter.enabled) app.use('/auth/*', rateLimit(rateLimiter, ipOf))
    app.route('/auth', deps.login.routes)
  }

  const webcat = deps.webcatFiles
  if (webcat !== undefined) {
    // Where WEBCAT clients look for a domain's policy (webcat-spec); only the names read at start
    // are answered, so the path names no file.
    app.get('/.well-known/webcat/:name', (c, next) => {
      const file = webcat.get(c.req.param('name'))
      if (file === undefined) return next()
      c.header(HEADERS.cacheControl, 'no-cache')
      return c.json(file)
    })
  }

  if (deps.webRoot !== undefined && existsSync(deps.webRoot)) mountWebApp(app, deps.webRoot)

  app.notFound((c) => c.json({ error: ERROR_MESSAGES.notFound }, 404))

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      setAnswerHeaders(c, err.headers)
      const body = err.details
        ? { error: err.message, details: err.details }
        : { error: err.message, ...err.fields }
      return c.json(body, err.status)
    }
    if (err instanceof HTTPException) return c.json({ error: err.message }, err.status)
    if (isClientAbort(err)) {
      // The client went away while its body was being read: nothing failed here, and no one is
      // left to read an answer.
      logger.debug(`${c.req.method} ${c.req.routePath}: the client went away during its request`)
      return c.json({ error: ERROR_MESSAGES.invalidRequest }, 400)
    }
    // An outage, not a fault: one line naming what is away, and the client may try again shortly.
    const away = isStorageUnavailable(err)
      ? 'storage'
      : isDatabaseUnavailable(err)
        ? 'database'
        : undefined
    if (away) {
      logger.warn(`${away} unavailable: ${outageCause(err)}`)
      setAnswerHeaders(c, { [HEADERS.retryAfter]: String(DATABASE_RETRY_AFTER_SEC) })
      return c.json({ error: DATABASE_UNAVAILABLE_MESSAGE }, 503)
    }
    logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err))
    return c.json({ error: ERROR_MESSAGES.internalError }, 500)
  })

  return app
}

/** This project's answer while the database or the storage cannot be reached (docs/api.md, Errors). */
export const DATABASE_UNAVAILABLE_MESSAGE = 'Service temporarily unavailable'
const DATABASE_RETRY_AFTER_SEC = 5

/** The message of an outage's first cause: the socket error rather than its wrapper. */
function outageCause(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
  return cause instanceof Error ? cause.message : String(cause)
}

/** Node's error for a request body whose connection closed before it was whole. */
function isClientAbort(err: unknown): boolean {
  return (
    err instanceof Error &&
    err.message === 'aborted' &&
    (err as NodeJS.ErrnoException).code === 'ECONNRESET'
  )
}

const REQUEST_CHUNK_PATH = /^\/api\/request\/([^/]+)\/upload\/([^/]+)\/chunk$/

/**
 * Chunk requests of uploads into requests skip the rate limit (spec: Endpoints); only those of an
 * open session do, so the exemption cannot be used to probe other routes.
 */
async function isRequestChunk(c: Context, requests: Services['requests']): Promise<boolean> {
  if (c.req.method !== 'POST') return false
  const match = REQUEST_CHUNK_PATH.exec(c.req.path)
  return match !== null && (await requests.isUploadSession(match[1]!, match[2]!))
}
