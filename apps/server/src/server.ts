/**
 * Starts the whole service from a config: database and migrations, blob store, services, HTTP
 * app, upload sockets and the cleanup job; and stops it in order. index.ts and the integration
 * tests both start the server through here.
 * May touch: the database and the blob store it opens; the network (the HTTP listener); timers;
 * process state (its pid); the log; the rest through the services.
 */
import type { IncomingMessage } from 'node:http'

import type { Config } from './config.js'
import { createApp } from './app.js'
import { startCheckpointer } from './db/checkpointer.js'
import { openDatabase } from './db/open-database.js'
import { leaderLock } from './db/leader-lock.js'
import type { SqliteDb } from './db/sqlite.js'
import { listen } from './listen.js'
import { securityHeaderValues } from './middleware/security-headers.js'
import { createLogger, type Logger } from './logger.js'
import { CleanupJob } from './ops/cleanup.js'
import { resetReservations } from './requests/request-slots.js'
import { createServices } from './composition/container.js'
import { openBlobStore } from './storage/open-blob-store.js'
import { requestUploadRoute } from './ws/request-upload-route.js'
import { attachUploadSockets } from './ws/upload-socket.js'
import { readWebcatFiles, webAppScriptHashes } from './web-integrity.js'
import { creationGuard } from './auth/creation-guard.js'
import { loadLogin } from './auth/login.js'
import { requestIp } from './middleware/client-ip.js'
import { serverMetrics } from './metrics/endpoint.js'

export interface StartOptions {
  version: string
  webRoot?: string | undefined
  now?: () => number
  logger?: Logger
  /** How long an upload socket may wait before its `init` frame (tests shorten the 10 s). */
  uploadInitTimeoutMs?: number
}

/**
 * A started service; `close()` lets running uploads finish for up to SHUTDOWN_GRACE_MS, aborts
 * what is left, and closes the database.
 */
export type RunningService = Awaited<ReturnType<typeof startServer>>

export async function startServer(config: Config, options: StartOptions) {
  const now = options.now ?? Date.now
  const logger = options.logger ?? createLogger(config.logLevel)
  // Files that vouch for the hosted app are read first: a malformed one stops the start early.
  const scriptHashes = webAppScriptHashes(options.webRoot)
  const webcatFiles = config.webcatDir === null ? undefined : readWebcatFiles(config.webcatDir)
  const db = await openDatabase(config)
  // SQLite's WAL is folded back off the event loop; PostgreSQL checkpoints on its own.
  const checkpointer =
    db.dialect === 'sqlite'
      ? startCheckpointer((db as SqliteDb).connection, (message) => logger.error(message))
      : undefined
  const blobs = await openBlobStore(config)
  const services = await createServices(config, db, blobs, logger, now)
  // On SQLite this process is the only instance: the holds of the last run are void, and every
  // unfinished blob without a session row (which may resume) is garbage. On PostgreSQL other
  // instances may be writing theirs into the same store: the cleanup job sweeps them by age.
  const single = db.dialect === 'sqlite'
  if (single) await services.sessionRows.releaseAll()
  // Sessions whose client did not ask to resume them end with a restart (spec: Upload slot inside
  // a request): on SQLite all of them, on PostgreSQL those of instances no longer alive.
  const ended = await services.sessions.endUnresumable(single)
  if (ended > 0) logger.info(`ended ${ended} unfinished uploads that were not to be resumed`)
  if (single) await blobs.sweepUnfinished(0, await services.sessions.resumableIds())
  // Reserved request slots of sessions that died with the last run; resumable ones keep theirs.
  const freed = await resetReservations(db, now)
  if (freed > 0) logger.info(`returned the slots of ${freed} requests held by unfinished uploads`)
  const login = await loadLogin(config, services.apiTokens)
  const guard = creationGuard(config, login?.keys ?? null, services.apiTokens)
  const metrics =
    config.metrics === null
      ? undefined
      : serverMetrics(config.metrics, {
          db,
          sessions: services.sessions,
          quotaBytes: config.uploadQuotaBytes,
          quotaWindowSec: config.uploadQuotaWindowSec,
          now,
          logger,
        })
  let draining = false
  const app = createApp({
    metrics,
    draining: () => draining,
    config,
    version: options.version,
    db,
    blobs,
    services,
    logger,
    now,
    guard,
    login,
    webRoot: options.webRoot,
    webcatFiles,
  })
  // What the start opened before its ports: closed last by close(), or by a port that fails.
  const closeOpened = async () => {
    services.sessions.stop()
    await metrics?.close()
    await checkpointer?.stop()
    await db.close()
  }
  const abandon = async (error: unknown): Promise<never> => {
    await closeOpened().catch(() => undefined)
    throw error
  }
  // METRICS_PORT first: a port that cannot be had stops the start before the main port opens.
  const metricsUrl = await metrics?.listen().catch(abandon)
  const http = await listen(app, {
    port: config.port,
    host: config.host,
    responseHeaders: securityHeaderValues({
      connectOrigins: blobs.downloadOrigin ? [blobs.downloadOrigin] : [],
      scriptHashes,
      https: new URL(config.baseUrl).protocol === 'https:',
    }),
  }).catch(abandon)
  const ipOf = (request: IncomingMessage) => requestIp(request, config.trustedProxies)
  const sockets = attachUploadSockets(http.server, {
    config,
    uploads: services.uploads,
    logger,
    ipOf,
    rateLimiter: services.rateLimiter,
    // The upgrade request carries the cookie or the Authorization header (spec: Optional login 1).
    requireLogin: async (request) => {
      await guard('file', (name) => headerOf(request, name))
    },
    routes: [requestUploadRoute({ config, requests: services.requests, ipOf })],
    initTimeoutMs: options.uploadInitTimeoutMs,
  })
  const leader = leaderLock(db, (leading) => {
    const runs = leading ? 'runs' : 'no longer runs'
    logger.info(`this instance (process ${process.pid}) ${runs} the background work`)
  })
  const cleanup = new CleanupJob({ config, db, blobs, services, logger, leader, now })
  cleanup.start(config.cleanupIntervalSec * 1000)
  services.notifier.start()

  let closing: Promise<void> | undefined
  const close = () => {
    draining = true
    closing ??= (async () => {
      // The timers and the checkpoint worker shutdown waits on do not keep the process alive
      // (they must not hold up an idle one); this does, until shutdown is over, so an embedding
      // script that awaits close() with nothing else to do is not cut off half way.
      const keepAlive = setInterval(() => undefined, 60_000)
      try {
        http.stopAccepting()
        sockets.stopAccepting()
        await cleanup.stop()
        // Notifications and uploads under way share one grace, not one after the other.
        const [, streams, chunked] = await Promise.all([
          services.notifier.stop(config.shutdownGraceMs),
          services.sessions.drain(config.shutdownGraceMs),
          services.chunkSessions.drain(config.shutdownGraceMs),
        ])
        const left = streams + chunked
        if (left > 0) logger.warn(`stopping with ${left} unfinished uploads; they may resume`)
        // Sockets first: each suspends its session as its connection ends.
        await sockets.close()
        await services.sessions.suspendAll()
        await http.close()
        // Once no chunk or finalize is under way here: the chunked sessions bound to this instance.
        // A database already gone cannot end them; another instance does once their hold lapses.
        await services.chunkSessions.endHeld().catch((error: unknown) => {
          logger.error(`could not end this instance's chunked sessions: ${String(error)}`)
        })
        await closeOpened()
      } finally {
        clearInterval(keepAlive)
      }
    })()
    return closing
  }

  return { url: http.url, app, config, db, blobs, services, cleanup, leader, metricsUrl, close }
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}
