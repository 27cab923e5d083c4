/**
 * Puts headers on an answer whichever way it was built, for middleware whose headers must be on
 * every answer, including those an error handler built from scratch.
 * May touch: nothing (pure): the answer it is given.
 */
import type { HttpBindings } from '@hono/node-server'
import type { Context, Next } from 'hono'

/**
 * Runs the rest of the chain with `headers` on its answer, setting each header once.
 *
 * Under the Node server they go on the Node response before the chain runs, and `writeHead`
 * merges in whatever answer comes back: a handler's, the error handler's, a redirect with
 * immutable headers, or one written straight to the socket. An answer that names one of these
 * headers itself keeps its own value. Elsewhere (`app.request()` in tests) they are set on the
 * context before the chain and again on the final response, which may not have used them.
 */
export function withHeaders(
  c: Context,
  next: Next,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  if (nodeResponse(c) === undefined) return withResponseHeaders(c, next, headers)
  setAnswerHeaders(c, headers)
  return next()
}

/**
 * Sets `headers` on the answer a handler is about to build, spelled as given: under the Node
 * server on the Node response (a Response's own headers go out in lower case, while the spec
 * spells `Retry-After` and `X-RateLimit-*`), elsewhere on the context.
 */
export function setAnswerHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  const outgoing = nodeResponse(c)
  for (const name in headers) {
    if (outgoing === undefined) c.header(name, headers[name]!)
    else outgoing.setHeader(name, headers[name]!)
  }
}

const nodeResponse = (c: Context) => (c.env as Partial<HttpBindings> | undefined)?.outgoing

async function withResponseHeaders(
  c: Context,
  next: Next,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [name, value] of Object.entries(headers)) c.header(name, value)
  await next()
  let target = c.res.headers
  for (const [name, value] of Object.entries(headers)) {
    try {
      target.set(name, value)
    } catch (err) {
      // `Response.redirect()` and fetched responses have immutable headers; copy the response.
      if (!(err instanceof TypeError)) throw err
      c.res = new Response(c.res.body, c.res)
      target = c.res.headers
      target.set(name, value)
    }
  }
}
