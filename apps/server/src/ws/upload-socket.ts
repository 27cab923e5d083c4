/**
 * Serves the upload WebSockets on the HTTP server's `upgrade` event (spec: WebSocket
 * /api/upload/ws). Upgrades that are switched off, come from another origin or name an unknown
 * path get a plain HTTP refusal, which clients treat as a failed handshake and fall back to the
 * chunked flow; every accepted socket runs the shared frame machinery with its route's handler.
 * May touch: the HTTP server's upgrade event and its sockets; timers; the log and the
 * metrics registry.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'

import { ERROR_MESSAGES, HEADERS, WS_CONTROL_FRAME_MAX_BYTES } from '@fileshare/protocol'
import { WebSocketServer } from 'ws'

import { DATABASE_UNAVAILABLE_MESSAGE } from '../app.js'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { isDatabaseUnavailable } from '../db/unavailable.js'
import { recordRateLimitRefusal } from '../metrics/recorder.js'
import { rateLimitHeaders } from '../middleware/rate-limit.js'
import type { RateLimit, RateLimitResult } from '../limits/rate-limiter.js'
import type { UploadsService } from '../uploads/uploads.js'
import { FILE_UPLOAD_PATH, fileUploadHandler } from './file-upload-route.js'
import { afterReads } from './after-reads.js'
import { ReceiveBudget } from './receive-budget.js'
import { SocketsPerIp } from './sockets-per-ip.js'
import { bufferLimits, UploadConnection } from './upload-connection.js'
import type { UploadSocketHandler } from './upload-handler.js'

/** One upload socket path; the request upload socket is another entry of the same table. */
export interface UploadSocketRoute {
  /** The handler for this path, or undefined when the path belongs to another route. */
  match(pathname: string): UploadSocketHandler | undefined
}

export interface UploadSocketDeps {
  config: Config
  uploads: UploadsService
  logger: Logger
  /** The client address for the quota; should be the one the HTTP routes use. */
  ipOf: (request: IncomingMessage) => string
  /** Throws 401 when creation needs a login and the upgrade request carries none. */
  requireLogin: (request: IncomingMessage) => Promise<void>
  /**
   * The per-IP limit of every endpoint (spec: Limits, rate limit), counted once per upgrade
   * request, with its headers on the handshake's answer; absent or off, nothing is counted.
   */
  rateLimiter?: RateLimit | undefined
  /** Further routes, such as `/api/request/:id/upload/ws`, tried after the normal upload socket. */
  routes?: UploadSocketRoute[]
  /** Milliseconds between keepalive pings. */
  keepaliveMs?: number
  /** How long a socket may wait before its `init` frame; 10 s by default (tests shorten it). */
  initTimeoutMs?: number | undefined
}

export interface UploadSockets {
  /** Refuses new upgrades from now on; open sockets carry on. */
  stopAccepting(): void
  /** Drops every open socket (their sessions abort) and detaches from the HTTP server. */
  close(): Promise<void>
  /** The most bytes one socket has held for the blob store since start, for tests and debugging. */
  readonly peakPendingBytes: number
  /** The most bytes all sockets held at once (FILE_UPLOAD_WS_BUFFER_BUDGET), likewise. */
  readonly peakHeldBytes: number
  /** Sockets whose reading waits for the budget, likewise. */
  readonly waitingForBudget: number
}

const KEEPALIVE_MS = 30_000

/** Answers an upgrade request with a JSON error and closes the connection. */
function refuse(
  socket: Duplex,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = JSON.stringify({ error: message })
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  socket.once('finish', () => socket.destroy())
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json\r\n' +
      'Cache-Control: no-store\r\n' +
      extra +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

function pathnameOf(request: IncomingMessage): string {
  try {
    return new URL(request.url ?? '/', 'http://upgrade.invalid').pathname
  } catch {
    return ''
  }
}

export function attachUploadSockets(server: Server, deps: UploadSocketDeps): UploadSockets {
  const { config, logger } = deps
  const fileHandler = fileUploadHandler({
    uploads: deps.uploads,
    ipOf: deps.ipOf,
    requireLogin: deps.requireLogin,
    progressWindowMs: config.fileUploadWsProgressWindowSec * 1000,
  })
  const routes: UploadSocketRoute[] = [
    { match: (pathname) => (pathname === FILE_UPLOAD_PATH ? fileHandler : undefined) },
    ...(deps.routes ?? []),
  ]
  const allowedOrigin = new URL(config.baseUrl).origin
  const limits = bufferLimits(config.fileUploadWsMaxBuffer)
  const budget = new ReceiveBudget(config.fileUploadWsBufferBudget)
  const perIp = new SocketsPerIp(config.fileUploadWsMaxPerIp)
  // ws refuses a longer message from its header, with close 1009. Until `ready` only a control
  // frame may come; each connection then raises its own limit (UploadConnection.limitFrames).
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: WS_CONTROL_FRAME_MAX_BYTES,
    clientTracking: false,
  })
  const connections = new Set<UploadConnection>()
  const limiter = deps.rateLimiter?.enabled ? deps.rateLimiter : undefined
  /** The rate limit headers of each accepted upgrade, for its 101 answer. */
  const handshakeHeaders = new WeakMap<IncomingMessage, Record<string, string>>()
  wss.on('headers', (lines: string[], request: IncomingMessage) => {
    const headers = handshakeHeaders.get(request)
    if (headers)
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  })
  let accepting = true
  let peakPendingBytes = 0

  const keepaliveMs = deps.keepaliveMs ?? KEEPALIVE_MS
  let lastTick = performance.now()
  const keepalive = setInterval(() => {
    // Timers run before the reads of a loop turn: a tick that comes late, the process having
    // been held up, may find a pong waiting unread. Such a tick pings without judging anyone.
    const now = performance.now()
    const onTime = now - lastTick < keepaliveMs * 1.5
    lastTick = now
    // And every verdict waits for this turn's reads, so that a pong already delivered to the
    // process is heard first, however little the tick was held up.
    afterReads(() => {
      for (const connection of connections) connection.heartbeat(onTime)
    })
  }, keepaliveMs)
  keepalive.unref()

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (error) => logger.debug('upload socket upgrade failed', error))
    const pathname = pathnameOf(request)
    let handler: UploadSocketHandler | undefined
    for (const route of routes) {
      handler = route.match(pathname)
      if (handler) break
    }
    if (!handler) return refuse(socket, 404, ERROR_MESSAGES.notFound)
    if (!limiter) return accept(request, socket, head, handler)
    const matched = handler
    const limited = (result: RateLimitResult): void => {
      const headers = rateLimitHeaders(result)
      if (!result.allowed) {
        recordRateLimitRefusal()
        return refuse(socket, 429, ERROR_MESSAGES.rateLimited, {
          ...headers,
          [HEADERS.retryAfter]: String(result.retryAfterSec),
        })
      }
      handshakeHeaders.set(request, headers)
      accept(request, socket, head, matched)
    }
    // The in-memory limit answers at once; the shared one waits for the database, and while the
    // database is away no upgrade is counted or let in.
    const result = limiter.hit(deps.ipOf(request))
    if (!(result instanceof Promise)) return limited(result)
    result.then(limited, (error: unknown) => {
      if (isDatabaseUnavailable(error)) {
        logger.warn('upload socket refused: the database is unavailable', error)
        return refuse(socket, 503, DATABASE_UNAVAILABLE_MESSAGE)
      }
      logger.error('upload socket refused: the rate limit failed', error)
      refuse(socket, 500, ERROR_MESSAGES.internalError)
    })
  }

  /** The checks after the rate limit, then the upgrade itself. */
  function accept(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    matched: UploadSocketHandler,
  ): void {
    // 404 as for a route that does not exist: the socket is not offered (spec: "Used only when
    // FILE_UPLOAD_WS is on"), and a client falls back on any failed handshake.
    if (!config.fileUploadWs) return refuse(socket, 404, ERROR_MESSAGES.webSocketUploadDisabled)
    if (!accepting) return refuse(socket, 503, ERROR_MESSAGES.shuttingDown)
    // Browsers always send Origin; the command line client sends none and is allowed.
    const origin = request.headers.origin
    if (origin !== undefined && origin !== allowedOrigin) {
      return refuse(socket, 403, ERROR_MESSAGES.originNotAllowed)
    }
    // A client gone while its upgrade waited on the rate limit has nothing left to count.
    if (socket.destroyed) return
    // 429 before the upgrade: the client falls back to chunked HTTP, which has limits of its own.
    const ip = deps.ipOf(request)
    if (!perIp.admit(ip)) return refuse(socket, 429, ERROR_MESSAGES.tooManyUploadSockets)
    // Whether ws upgrades it or refuses the handshake, the connection ends with its close.
    socket.once('close', () => perIp.release(ip))
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new UploadConnection(ws, request, matched, {
        limits,
        logger,
        budget,
        socket,
        ...(deps.initTimeoutMs === undefined ? {} : { initTimeoutMs: deps.initTimeoutMs }),
        onPending: (bytes) => {
          if (bytes > peakPendingBytes) peakPendingBytes = bytes
        },
      })
      connections.add(connection)
      void connection.closed.then(() => connections.delete(connection))
    })
  }

  server.on('upgrade', onUpgrade)

  let closing: Promise<void> | undefined
  async function close(): Promise<void> {
    accepting = false
    clearInterval(keepalive)
    server.off('upgrade', onUpgrade)
    const open = [...connections]
    for (const connection of open) connection.terminate()
    await Promise.all(open.map((connection) => connection.closed))
    await new Promise<void>((resolve) => wss.close(() => resolve()))
  }

  return {
    stopAccepting() {
      accepting = false
    },
    close() {
      closing ??= close()
      return closing
    },
    get peakPendingBytes() {
      return peakPendingBytes
    },
    get peakHeldBytes() {
      return budget.peakBytes
    },
    get waitingForBudget() {
      return budget.waitingCount
    },
  }
}
