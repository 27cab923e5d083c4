/**
 * Serves the upload WebSockets on the HTTP server's `upgrade` event (spec: WebSocket
 * /api/upload/ws). A refused upgrade gets a plain HTTP answer, on which clients fall back to the
 * chunked flow; an accepted one runs an UploadConnection with its route's handler.
 * May touch: the HTTP server's upgrade event and its sockets; timers; the log and the metrics.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'

import {
  ERROR_MESSAGES,
  REQUEST_WS_MIN_PROGRESS_BYTES,
  WS_CONTROL_FRAME_MAX_BYTES,
} from '@fileshare/protocol'
import { WebSocketServer } from 'ws'

import { DATABASE_UNAVAILABLE_MESSAGE } from '../app.js'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { isDatabaseUnavailable } from '../db/unavailable.js'
import { rateLimitHeaders } from '../middleware/rate-limit.js'
import type { RateLimit, RateLimitResult } from '../limits/rate-limiter.js'
import type { UploadsService } from '../uploads/uploads.js'
import { fileUploadRoute } from './file-upload-route.js'
import { ReceiveBudget } from '../limits/receive-budget.js'
import { bufferLimits, UploadConnection } from './upload-connection.js'
import type { UploadSocketHandler, UploadSocketRoute } from './upload-handler.js'

export interface UploadSocketDeps {
  config: Config
  uploads: UploadsService
  logger: Logger
  /** The client address for the quota, as the HTTP routes see it. */
  ipOf: (request: IncomingMessage) => string
  /** Throws 401 when creation needs a login and the upgrade request carries none. */
  requireLogin: (request: IncomingMessage) => Promise<void>
  /** The per-IP rate limit (spec: Limits), counted once per upgrade request when on. */
  rateLimiter?: RateLimit | undefined
  /** Further routes, such as `/api/request/:id/upload/ws`, tried after `/api/upload/ws`. */
  routes?: UploadSocketRoute[]
  /** Milliseconds between keepalive pings, and before the `init` frame; tests shorten them. */
  keepaliveMs?: number
  /** How long a socket may wait before its `init` frame; 10 s by default (tests shorten it). */
  initTimeoutMs?: number | undefined
  /** Window of the progress rule; FILE_UPLOAD_WS_PROGRESS_WINDOW_SEC unless a test says. */
  progressWindowMs?: number
}

export type UploadSockets = ReturnType<typeof attachUploadSockets>

const KEEPALIVE_MS = 30_000
/** What an upgrade request's path is read against. */
const BASE = 'http://upgrade.invalid'

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

export function attachUploadSockets(server: Server, deps: UploadSocketDeps) {
  const { config, logger } = deps
  const routes = [fileUploadRoute(deps), ...(deps.routes ?? [])]
  const progress = {
    windowMs: deps.progressWindowMs ?? config.fileUploadWsProgressWindowSec * 1000,
    minBytes: REQUEST_WS_MIN_PROGRESS_BYTES,
  }
  const allowedOrigin = new URL(config.baseUrl).origin
  const limits = bufferLimits(config.fileUploadWsMaxBuffer)
  const budget = new ReceiveBudget(config.fileUploadWsBufferBudget)
  /** Upload sockets open per client address, at most FILE_UPLOAD_WS_MAX_PER_IP (0: no limit). */
  const openPerIp = new Map<string, number>()
  const maxPerIp = config.fileUploadWsMaxPerIp || Infinity
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
    const headers = Object.entries(handshakeHeaders.get(request) ?? {})
    for (const [name, value] of headers) lines.push(`${name}: ${value}`)
  })
  let accepting = true
  let peakPendingBytes = 0

  const keepaliveMs = deps.keepaliveMs ?? KEEPALIVE_MS
  let lastTick = performance.now()
  const keepalive = setInterval(() => {
    // Timers run before the reads of a loop turn: a late tick may find a pong waiting unread, so
    // it pings without judging anyone.
    const now = performance.now()
    const onTime = now - lastTick < keepaliveMs * 1.5
    lastTick = now
    // And every verdict waits for this turn's reads, so that a pong already delivered is heard.
    setImmediate(() => {
      for (const connection of connections) connection.heartbeat(onTime)
    })
  }, keepaliveMs)
  keepalive.unref()

  async function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', (error) => logger.debug('upload socket upgrade failed', error))
    const url = request.url ?? '/'
    const pathname = URL.canParse(url, BASE) ? new URL(url, BASE).pathname : ''
    let handler: UploadSocketHandler | undefined
    for (const route of routes) handler ??= route(pathname)
    if (!handler) return refuse(socket, 404, ERROR_MESSAGES.notFound)
    if (limiter) {
      let result: RateLimitResult
      try {
        // The shared limit waits for the database, and while that is away no upgrade is let in.
        result = await limiter.hit(deps.ipOf(request))
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          logger.warn('upload socket refused: the database is unavailable', error)
          return refuse(socket, 503, DATABASE_UNAVAILABLE_MESSAGE)
        }
        logger.error('upload socket refused: the rate limit failed', error)
        return refuse(socket, 500, ERROR_MESSAGES.internalError)
      }
      const headers = rateLimitHeaders(result)
      if (!result.allowed) return refuse(socket, 429, ERROR_MESSAGES.rateLimited, headers)
      handshakeHeaders.set(request, headers)
    }
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
    const open = openPerIp.get(ip) ?? 0
    if (open >= maxPerIp) return refuse(socket, 429, ERROR_MESSAGES.tooManyUploadSockets)
    openPerIp.set(ip, open + 1)
    // Whether ws upgrades it or refuses the handshake, the connection ends with its close.
    socket.once('close', () => {
      const left = (openPerIp.get(ip) ?? 1) - 1
      if (left > 0) openPerIp.set(ip, left)
      else openPerIp.delete(ip)
    })
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new UploadConnection(ws, request, handler, {
        limits,
        logger,
        budget,
        socket,
        progress,
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
    for (const connection of open) connection.ws.terminate()
    await Promise.all(open.map((connection) => connection.closed))
    await new Promise<void>((resolve) => wss.close(() => resolve()))
  }

  return {
    /** Refuses new upgrades from now on; open sockets carry on. */
    stopAccepting() {
      accepting = false
    },
    /** Drops every open socket and detaches from the HTTP server. */
    close: () => (closing ??= close()),
    /** For tests: the most bytes one socket held for the store, and the receive budget. */
    get peakPendingBytes() {
      return peakPendingBytes
    },
    budget: budget as Readonly<ReceiveBudget>,
  }
}
