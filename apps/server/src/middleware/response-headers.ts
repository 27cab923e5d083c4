/**
 * Puts headers on an answer whichever way it was built, for middleware whose headers must be on
 * every answer, including those an error handler built from scratch.
 * May touch: nothing (pure): the answer it is given.
 */
import type { HttpBindings } from '@hono/node-server'
import type { Context, Next } from 'hono'

/**
 * Runs the rest of the chain with `headers` on its answer: under Node `writeHead` merges them into
 * whatever answer comes back; elsewhere (`app.request()` in tests) they are set on the response.
 */
export async function withHeaders(
  c: Context,
  next: Next,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  setAnswerHeaders(c, headers)
  await next()
  if (nodeResponse(c) !== undefined) return
  for (const [name, value] of Object.entries(headers)) {
    try {
      c.res.headers.set(name, value)
    } catch (err) {
      // `Response.redirect()` and fetched responses have immutable headers; copy the response.
      if (!(err instanceof TypeError)) throw err
      c.res = new Response(c.res.body, c.res)
      c.res.headers.set(name, value)
    }
  }
}

/** Sets `headers` on the answer to come, spelled as given (a Response's own go out lower-case). */
export function setAnswerHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  const outgoing = nodeResponse(c)
  for (const name in headers) {
    if (outgoing === undefined) c.header(name, headers[name]!)
    else outgoing.setHeader(name, headers[name]!)
  }
}

const nodeResponse = (c: Context) => (c.env as Partial<HttpBindings> | undefined)?.outgoing
