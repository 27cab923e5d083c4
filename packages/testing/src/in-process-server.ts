/**
 * The real server started in the test process on loopback with a temporary DATA_DIR. Each app
 * passes how it starts the server (from the sources, or from the server package's build) and the
 * options it needs; the defaults and the data folder's life are shared here.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** What every in-process test server starts from; a suite's `env` replaces any of it. */
export const TEST_SERVER_ENV: Readonly<Record<string, string>> = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_MAX: '0',
  SHUTDOWN_GRACE_MS: '1000',
}

/** The log level of in-process servers: silent, or errors to stderr with TEST_LOG_LEVEL=error. */
export function testLogLevel(): 'error' | 'silent' {
  return process.env.TEST_LOG_LEVEL === 'error' ? 'error' : 'silent'
}

export interface StartableService {
  url: string
  close(): Promise<void>
}

export interface InProcessServer<S extends StartableService> {
  url: string
  dataDir: string
  service: S
  /** Stops the server; keeps DATA_DIR when `keepData` so a restart can reuse it. */
  close(options?: { keepData?: boolean }): Promise<void>
}

export interface InProcessServerOptions {
  /** Variables on top of TEST_SERVER_ENV and DATA_DIR. */
  env?: Record<string, string> | undefined
  /** An existing data folder (a restart); by default a new temporary one. */
  dataDir?: string | undefined
  /** The temporary folder's name prefix. */
  prefix?: string | undefined
}

/** Starts `start(env)` with the test defaults and a data folder removed again on close. */
export async function startInProcessServer<S extends StartableService>(
  start: (env: Record<string, string>) => Promise<S>,
  options: InProcessServerOptions = {},
): Promise<InProcessServer<S>> {
  const dataDir =
    options.dataDir ?? (await mkdtemp(join(tmpdir(), options.prefix ?? 'fileshare-test-')))
  const service = await start({ ...TEST_SERVER_ENV, DATA_DIR: dataDir, ...options.env }).catch(
    async (error: unknown) => {
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true })
      throw error
    },
  )
  return {
    url: service.url,
    dataDir,
    service,
    async close({ keepData = false } = {}) {
      await service.close()
      if (!keepData) await rm(dataDir, { recursive: true, force: true })
    },
  }
}
