/** Starts an HTTP server for an app and hands back its address and a way to stop it. */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { serve } from '@hono/node-server'
import type { Hono } from 'hono'

export interface ListenOptions {
  port: number
  host: string
}

export interface RunningServer {
  /** Base address that answers requests, e.g. http://127.0.0.1:3000. */
  url: string
  /** Stops accepting connections and resolves once the requests under way have been answered. */
  close(): Promise<void>
}

export function listen(app: Hono, options: ListenOptions): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let closing = false
    // Without createServer options, serve() always builds a plain node:http server.
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info) =>
      resolve({ url: baseUrl(info), close }),
    ) as Server
    server.once('error', reject)

    // A keep-alive socket whose response is still being written when close() runs is not idle
    // yet, so it is closed as soon as that response finishes instead of lingering open.
    server.on('request', (_req, res) => {
      res.once('finish', () => {
        if (closing) server.closeIdleConnections()
      })
    })

    function close(): Promise<void> {
      closing = true
      return new Promise((done, fail) => {
        server.close((err) => (err ? fail(err) : done()))
        server.closeIdleConnections()
      })
    }
  })
}

function baseUrl(info: AddressInfo): string {
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
  return `http://${host}:${info.port}`
}
