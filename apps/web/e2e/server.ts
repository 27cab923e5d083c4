/**
 * The real fileshare server for the end-to-end suite and the benchmark: its built code on a free
 * loopback port with a temporary DATA_DIR, hosting the built web app (apps/web/dist). Each suite
 * passes the environment it needs on top of defaults that let a 1 GiB upload through.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { loadConfig } from '@fileshare/server/dist/config.js'
import { createLogger } from '@fileshare/server/dist/logger.js'
import { startServer, type RunningService } from '@fileshare/server/dist/server.js'

/** The built web app; `pnpm --filter @fileshare/web build` writes it (E2E_WEB_ROOT overrides). */
export const WEB_ROOT =
  process.env.E2E_WEB_ROOT ?? fileURLToPath(new URL('../dist', import.meta.url))

export interface E2eServer {
  url: string
  dataDir: string
  service: RunningService
  close(): Promise<void>
}

export interface E2eServerOptions {
  env?: Record<string, string>
  /** A port chosen beforehand, for an OIDC client whose redirect URI must be known first. */
  port?: number
}

/** A port free right now on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export async function startE2eServer(options: E2eServerOptions = {}): Promise<E2eServer> {
  if (!existsSync(join(WEB_ROOT, 'index.html'))) {
    throw new Error(`no built web app at ${WEB_ROOT}: run pnpm --filter @fileshare/web build`)
  }
  const port = options.port ?? (await freePort())
  const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-e2e-'))
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    // The WebSocket upload checks Origin against BASE_URL, so it must be the address the browser uses.
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    FILE_MAX_SIZE: '2GiB',
    SHUTDOWN_GRACE_MS: '1000',
    ...options.env,
  })
  const service = await startServer(config, {
    version: 'e2e',
    webRoot: WEB_ROOT,
    logger: createLogger(process.env.TEST_LOG_LEVEL === 'error' ? 'error' : 'silent'),
  })
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
