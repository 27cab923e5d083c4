/**
 * The one-shot HTTP listener on 127.0.0.1 that receives the session token at the end of a
 * command-line login: the server redirects the browser to `cli_callback?token=…` (spec: Login
 * routes). A random `state` in the callback's path ties the answer to this login; anything else
 * is answered 404 and ignored.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { CLI_TOKEN_PARAM, deferred } from '@fileshare/protocol'

export interface LoginListener {
  /** The `cli_callback` to hand to `/auth/login`. */
  callbackUrl: string
  /** Resolves with the token once the browser arrives; rejects on abort. */
  token: Promise<string>
  close(): Promise<void>
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title>` +
  `<body style="font-family:system-ui,sans-serif;margin:4rem auto;max-width:32rem">` +
  `<h1>${title}</h1><p>${text}</p></body>`

export async function startLoginListener(signal?: AbortSignal): Promise<LoginListener> {
  const state = randomBytes(16).toString('hex')
  const path = `/fileshare-login/${state}`
  // Callers attach their handler later; an abort before then does not count as unhandled.
  const { promise: token, resolve: resolveToken, reject: rejectToken } = deferred<string>()
  let done = false

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const value = url.searchParams.get(CLI_TOKEN_PARAM)
    response.setHeader('Cache-Control', 'no-store')
    response.setHeader('Content-Type', 'text/html; charset=utf-8')
    response.setHeader('Connection', 'close')
    if (request.method !== 'GET' || url.pathname !== path || done || !value) {
      response.writeHead(404).end(PAGE('Not found', 'This address only takes one login.'))
      return
    }
    done = true
    response
      .writeHead(200)
      .end(PAGE('Signed in', 'fileshare is signed in. You can close this window.'))
    resolveToken(value)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  const onAbort = () => rejectToken(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  void token.finally(() => signal?.removeEventListener('abort', onAbort)).catch(() => undefined)
  return { callbackUrl: `http://127.0.0.1:${port}${path}`, token, close }
}
