/** Serves the built single-page web app, answering index.html for any page path it does not know. */
import { serveStatic } from '@hono/node-server/serve-static'
import type { Env, Hono, MiddlewareHandler } from 'hono'

export function mountWebApp<E extends Env>(app: Hono<E>, root: string): void {
  app.use('*', outsideApi(serveStatic({ root })))
  // The web app routes in the browser, so a deep link must load the same page.
  app.get('*', outsideApi(serveStatic({ root, path: 'index.html' })))
}

export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/')
}

function outsideApi<E extends Env>(handler: MiddlewareHandler): MiddlewareHandler<E> {
  return (c, next) => (isApiPath(c.req.path) ? next() : handler(c, next))
}
