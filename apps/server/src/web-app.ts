/**
 * Serves the built single-page web app, answering index.html for any page path it does not know.
 * May touch: the file system (the built web app's folder).
 */
import { serveStatic } from '@hono/node-server/serve-static'
import type { Env, Hono } from 'hono'

export function mountWebApp<E extends Env>(app: Hono<E>, root: string): void {
  const files = serveStatic({ root })
  app.use('*', (c, next) => (isUnder(c.req.path, '/api') ? next() : files(c, next)))
  // The web app routes in the browser, so a deep link must load the same page; a missing file
  // (a script, an image) or a path under /auth answers the JSON 404 instead of that page.
  const page = serveStatic({ root, path: 'index.html' })
  app.get('*', (c, next) => (isPagePath(c.req.path) ? page(c, next) : next()))
}

/**
 * Paths the web app routes itself: no file name, outside the API, the login, the assets,
 * `/.well-known` and `/metrics` (which answers 404 wherever metrics are not served, never a page).
 */
function isPagePath(path: string): boolean {
  const folders = ['/api', '/auth', '/assets', '/metrics', '/.well-known']
  if (folders.some((folder) => isUnder(path, folder))) return false
  return !path.slice(path.lastIndexOf('/') + 1).includes('.')
}

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`)
}
