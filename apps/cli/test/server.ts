/**
 * The real fileshare server for the end-to-end suites, started in the test process from the
 * server package's build on a free loopback port with a temporary DATA_DIR.
 */
import { loadConfig } from '@fileshare/server/dist/config.js'
import { createLogger } from '@fileshare/server/dist/logger.js'
import { startServer, type RunningService } from '@fileshare/server/dist/server.js'
import { startInProcessServer, type InProcessServer } from '@fileshare/testing'

export type TestServer = InProcessServer<RunningService>

/** `now` replaces the server's clock (milliseconds since the epoch). */
export function startTestServer(
  env: Record<string, string> = {},
  now?: () => number,
): Promise<TestServer> {
  return startInProcessServer(
    (serverEnv) =>
      startServer(loadConfig(serverEnv), {
        version: 'test',
        logger: createLogger('silent'),
        ...(now ? { now } : {}),
      }),
    { env, prefix: 'fileshare-cli-server-' },
  )
}
