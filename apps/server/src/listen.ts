/**
 * Starts an HTTP server for an app and hands back its address and a way to stop it; its
 * connections close lingering.
 * May touch: the network (a listening socket and its connections); timers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Server, type AddressInfo, type Socket } from 'node:net'

import { HEADERS } from '@fileshare/protocol'
import { getRequestListener } from '@hono/node-server'
import type { Env, Hono } from 'hono'

export interface ListenOptions {
  port: number
  host: string
  /** Headers every answer carries unless it names them itself (the security headers). */
  responseHeaders?: Readonly<Record<string, string>>
  /** A connection that moves no byte either way for this long is closed; IDLE_TIMEOUT_MS. */
  idleTimeoutMs?: number
}

/**
 * How long a connection may stand still mid-request or mid-answer. Node's own limit is on a whole
 * request, which would cut off a large upload on a slow link however steadily its bytes arrive.
 */
const IDLE_TIMEOUT_MS = 5 * 60_000

/**
 * How long an idle keep-alive connection stays open (Node's default, named because a proxy in
 * front must drop its idle upstream connections sooner: docs/deploy.md).
 */
const KEEP_ALIVE_TIMEOUT_MS = 5_000

/** The longest a closing connection keeps reading what its client still sends. */
const LINGER_MS = 2_000

/** A listening server; `stopAccepting()` keeps open connections, so uploads under way finish. */
export type RunningServer = Awaited<ReturnType<typeof listen>>

export async function listen<E extends Env>(app: Hono<E>, options: ListenOptions) {
  let closing = false
  const answer = getRequestListener(app.fetch, { hostname: options.host })
  const extra = Object.entries(options.responseHeaders ?? {})
  // A keep-alive socket whose response is still being written when close() runs is not idle
  // yet, so it is closed as soon as that response finishes instead of lingering open.
  const onFinish = () => {
    if (closing) server.closeIdleConnections()
  }
  // Set before the app runs, so the app's answer overrides any it names, at no extra step
  // through the app's middleware chain.
  const server = createServer(
    { requestTimeout: 0 },
    (request: IncomingMessage, response: ServerResponse) => {
      for (const [name, value] of extra) response.setHeader(name, value)
      // API answers, errors included, are never to be reused: a browser that kept a 410 would
      // show it again after the item was deleted (404). The app may still name its own.
      if (request.url?.startsWith('/api/')) response.setHeader(HEADERS.cacheControl, 'no-store')
      response.on('finish', onFinish)
      void answer(request, response)
    },
  )
  // Without a 'timeout' listener, Node destroys a socket that idles this long. An upgraded
  // upload socket is taken off this timer by `ws`, and has its own keepalive.
  server.setTimeout(options.idleTimeoutMs ?? IDLE_TIMEOUT_MS)
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  // Node's close after a `Connection: close` answer (`destroySoon`) becomes a lingering one.
  server.on('connection', (socket: Socket) => (socket.destroySoon = closeLingering))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, resolve)
  })

  let closed: Promise<void> | undefined
  const stopAccepting = (): void => {
    // net.Server's close stops listening only; http.Server's would also drop idle keep-alive
    // connections, which an upload in progress still needs.
    closed ??= new Promise((done, fail) => {
      Server.prototype.close.call(server, (err?: Error) => (err ? fail(err) : done()))
    })
  }
  const close = (): Promise<void> => {
    stopAccepting()
    closing = true
    server.closeIdleConnections()
    return closed!
  }
  const { address, family, port } = server.address() as AddressInfo
  const host = family === 'IPv6' ? `[${address}]` : address
  return { url: `http://${host}:${port}`, server, stopAccepting, close }
}

/**
 * Closes an HTTP connection in stages (RFC 9112, section 9.6): after the last answer the server
 * sends its FIN but reads and discards what the client still sends, for up to `LINGER_MS`. Closed
 * at once, the socket would answer arriving bytes with a reset, and a client still sending a body
 * the server refused (an early 413) would lose the answer.
 */
function closeLingering(this: Socket): void {
  if (this.destroyed) return
  // The client has closed its side already: nothing more can arrive to be discarded, so the
  // socket closes once what is written has gone out.
  if (this.readableEnded) {
    this.end(() => this.destroy())
    return
  }
  const timer = setTimeout(() => this.destroy(), LINGER_MS)
  timer.unref()
  this.once('close', () => clearTimeout(timer))
  this.once('end', () => this.destroy())
  this.end()
  this.resume()
}
