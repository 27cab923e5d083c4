/**
 * The real fileshare server for the end-to-end suites, started in the test process from the
 * server package's build on a free loopback port with a temporary DATA_DIR.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { loadConfig } from '@fileshare/server/dist/config.js'
import { createLogger } from '@fileshare/server/dist/logger.js'
import { startServer, type RunningService } from '@fileshare/server/dist/server.js'

export interface TestServer {
  url: string
  dataDir: string
  service: RunningService
  close(): Promise<void>
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-cli-server-'))
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    SHUTDOWN_GRACE_MS: '1000',
    ...env,
  })
  const service = await startServer(config, { version: 'test', logger: createLogger('silent') })
  return {
    url: service.url,
    dataDir,
    service,
    async close() {
      await service.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
