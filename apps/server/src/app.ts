/** Builds the HTTP application: the API routes, the web app and the single error handler. */
import { existsSync } from 'node:fs'

import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'

import { systemRoutes } from './routes/system.js'
import { mountWebApp } from './web-app.js'

export interface AppDeps {
  version: string
  /** Folder of the built web app; the app is not served when it is absent or does not exist. */
  webRoot?: string | undefined
  now?: () => Date
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono()

  app.route('/api', systemRoutes({ version: deps.version, now: deps.now ?? (() => new Date()) }))

  if (deps.webRoot !== undefined && existsSync(deps.webRoot)) mountWebApp(app, deps.webRoot)

  app.notFound((c) => c.json({ error: 'Not found' }, 404))

  app.onError((err, c) => {
    if (err instanceof HTTPException) return c.json({ error: err.message }, err.status)
    console.error(err)
    return c.json({ error: 'Internal server error' }, 500)
  })

  return app
}
