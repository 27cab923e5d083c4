/**
 * Entry point of `node apps/server/dist/index.js`: reads the config, starts the service and stops
 * cleanly on a signal; a setting or start-up failure stops it with one line.
 * May touch: process state (signals, stdout, stderr, exit code, Node flags); the rest through
 * server.ts.
 */
import { fileURLToPath } from 'node:url'

import { ConfigError, loadConfig } from './config.js'
import { describeNodeFlags, setRuntimeFlags } from './node-flags.js'
import { readPackageVersion } from './package-version.js'
import { startServer } from './server.js'
import { describeStartupFailure, StartupFailure } from './startup-failure.js'

async function main(): Promise<void> {
  setRuntimeFlags()
  const config = loadConfig()
  const service = await startServer(config, {
    version: readPackageVersion(),
    // The web app's build output, found from this module in both src/ and dist/.
    webRoot: fileURLToPath(new URL('../../web/dist', import.meta.url)),
  }).catch((error: unknown) => {
    const line = describeStartupFailure(error, config)
    throw line === undefined ? error : new StartupFailure(line, { cause: error })
  })
  console.log(describeNodeFlags(process.execArgv))
  const database = service.db.dialect === 'sqlite' ? `SQLite on ${service.db.driver}` : 'PostgreSQL'
  console.log(`fileshare listening on ${service.url} (${database}, data in ${config.dataDir})`)

  const stop = (signal: NodeJS.Signals): void => {
    console.log(`fileshare stopping on ${signal}`)
    service.close().then(
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

main().catch((err: unknown) => {
  const oneLine = err instanceof ConfigError || err instanceof StartupFailure
  console.error(oneLine ? `fileshare: ${err.message}` : err)
  process.exit(1)
})
