/** Wires the service together: config, app, HTTP server, and a clean stop on SIGTERM or SIGINT. */
import { fileURLToPath } from 'node:url'

import { createApp } from './app.js'
import { loadConfig } from './config.js'
import { listen } from './listen.js'
import { readPackageVersion } from './package-version.js'

/** The web app's build output, found from this module in both src/ and dist/. */
const WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url))

export async function main(): Promise<void> {
  const config = loadConfig()
  const app = createApp({ version: readPackageVersion(), webRoot: WEB_ROOT })
  const server = await listen(app, config)
  console.log(`fileshare listening on ${server.url}`)

  const stop = (signal: NodeJS.Signals): void => {
    console.log(`fileshare stopping on ${signal}`)
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err)
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
