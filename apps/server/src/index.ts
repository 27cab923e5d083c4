/**
 * Entry point of `node apps/server/dist/index.js`: starts the service or stops with one line.
 * May touch: process state (stderr, exit code).
 */
import { ConfigError } from './config.js'
import { main } from './main.js'
import { StartupFailure } from './startup-failure.js'

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof StartupFailure) {
    console.error(`fileshare: ${err.message}`)
  } else {
    console.error(err)
  }
  process.exit(1)
})
