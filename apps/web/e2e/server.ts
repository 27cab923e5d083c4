/**
 * The real fileshare server for the end-to-end suite and the benchmark: its built code on a free
 * loopback port with a temporary DATA_DIR, hosting the built web app (apps/web/dist). Each suite
 * passes the environment it needs on top of defaults that let a 1 GiB upload through.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { loadConfig } from '@fileshare/server/dist/config.js'
import { createLogger } from '@fileshare/server/dist/logger.js'
import { startServer, type RunningService } from '@fileshare/server/dist/server.js'
import {
  freePort,
  startInProcessServer,
  testLogLevel,
  type InProcessServer,
} from '@fileshare/testing'

/** The built web app; `pnpm --filter @fileshare/web build` writes it (E2E_WEB_ROOT overrides). */
export const WEB_ROOT =
  process.env.E2E_WEB_ROOT ?? fileURLToPath(new URL('../dist', import.meta.url))

export type E2eServer = InProcessServer<RunningService>

export interface E2eServerOptions {
  env?: Record<string, string>
  /** A port chosen beforehand, for an OIDC client whose redirect URI must be known first. */
  port?: number
  /** Another build of the web app to host (a tampered copy); WEB_ROOT by default. */
  webRoot?: string
  /** The server's clock, for a test that moves it on (a read grant that lapses). */
  now?: () => number
}

export async function startE2eServer(options: E2eServerOptions = {}): Promise<E2eServer> {
  const webRoot = options.webRoot ?? WEB_ROOT
  if (!existsSync(join(webRoot, 'index.html'))) {
    throw new Error(`no built web app at ${webRoot}: run pnpm --filter @fileshare/web build`)
  }
  const port = options.port ?? (await freePort())
  return startInProcessServer(
    (env) =>
      startServer(loadConfig(env), {
        version: 'e2e',
        webRoot,
        logger: createLogger(testLogLevel()),
        ...(options.now ? { now: options.now } : {}),
      }),
    {
      env: {
        PORT: String(port),
        // The WebSocket upload checks Origin against BASE_URL, so it must be the address the browser uses.
        BASE_URL: `http://127.0.0.1:${port}`,
        FILE_MAX_SIZE: '2GiB',
        ...options.env,
      },
      prefix: 'fileshare-e2e-',
    },
  )
}
