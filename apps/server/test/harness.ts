/**
 * Starts the real server (database, blob store, HTTP and WebSocket) on a free loopback port
 * with a temporary DATA_DIR, for the integration suites. A manual clock lets tests move time.
 */
import { randomBytes } from 'node:crypto'

import { toBase64, toBase64Url } from '@fileshare/protocol'
import { startInProcessServer, testLogLevel, type InProcessServer } from '@fileshare/testing'

import { loadConfig } from '../src/config.js'
import { createLogger, type Logger } from '../src/logger.js'
import { startServer, type RunningService } from '../src/server.js'
import { newDatabaseEnv } from './dialects.js'
import { type Db } from '../src/db/client.js'
import { openDatabase } from '../src/db/open-database.js'

export interface ManualClock {
  now: () => number
  advance(ms: number): void
}

/** A clock that starts at the real time and moves only when told to. */
export function manualClock(start = Date.now()): ManualClock {
  let current = start
  return { now: () => current, advance: (ms) => void (current += ms) }
}

export type TestServer = InProcessServer<RunningService> & { clock: ManualClock | undefined }

export interface TestServerOptions {
  env?: Record<string, string>
  clock?: ManualClock
  dataDir?: string
  webRoot?: string
  version?: string
  /** Where the server logs; by default nowhere (TEST_LOG_LEVEL=error: errors to stderr). */
  logger?: Logger
  /** How long an upload socket may wait before `init` (the server's default is 10 s). */
  uploadInitTimeoutMs?: number
}

/** The database settings of each data folder, so a restart on it finds the same database. */
const databases = new Map<string, Record<string, string>>()

/** Opens the database of a stopped server's data folder (the test dialect's). */
export function reopenDatabase(dataDir: string): Promise<Db> {
  const url = databases.get(dataDir)?.DATABASE_URL
  return openDatabase({ dataDir, databaseUrl: url ?? null, databasePoolSize: 1 })
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const clock = options.clock
  const reused = options.dataDir === undefined ? undefined : databases.get(options.dataDir)
  const database = reused ?? (await newDatabaseEnv())
  const server = await startInProcessServer(
    (env) =>
      startServer(loadConfig(env), {
        version: options.version ?? 'test',
        webRoot: options.webRoot,
        logger: options.logger ?? createLogger(testLogLevel()),
        ...(clock ? { now: clock.now } : {}),
        ...(options.uploadInitTimeoutMs === undefined
          ? {}
          : { uploadInitTimeoutMs: options.uploadInitTimeoutMs }),
      }),
    { env: { ...database, ...options.env }, dataDir: options.dataDir },
  )
  databases.set(server.dataDir, database)
  return { ...server, clock }
}

/** A random bearer token as clients derive them: 32 bytes, base64url. */
export function randomToken(): string {
  return toBase64Url(randomBytes(32))
}

/** Valid headers for a new upload of `size` encrypted bytes; `overrides` replace or remove. */
export function uploadHeaders(
  size: number,
  overrides: Record<string, string | undefined> = {},
  sizeHeader = 'X-Content-Length',
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'X-Auth-Token': randomToken(),
    'X-Owner-Token': randomToken(),
    'X-Salt': toBase64Url(randomBytes(32)),
    'X-Max-Downloads': '1',
    'X-Expire-Sec': '86400',
    'X-File-Count': '1',
    'X-Has-Password': 'false',
    [sizeHeader]: String(size),
    ...overrides,
  }
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
}

/**
 * The headers of an upload socket's `init` frame for `size` bytes (those of uploadHeaders under
 * their frame names); `overrides` replace or, undefined, remove entries.
 */
export function socketInitHeaders(
  size: number,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    authToken: randomToken(),
    ownerToken: randomToken(),
    salt: toBase64Url(randomBytes(32)),
    maxDownloads: '1',
    expireSec: '86400',
    fileCount: '1',
    contentLength: String(size),
    hasPassword: 'false',
    ...overrides,
  }
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
}

/** The head of a raw HTTP/1.1 request, for tests that write to a socket themselves. */
export function requestHead(method: string, path: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n`
}

/** A logger at level `error` that keeps the lines it writes. */
export function errorCapturingLogger(): { logger: Logger; errors: string[] } {
  const errors: string[] = []
  const logger = createLogger('error', {
    stdout: { write: () => true },
    stderr: { write: (line: string) => errors.push(line) },
  })
  return { logger, errors }
}

/** A valid `POST /api/note` body: a text note of 300 bytes, 5 views, an hour; `changes` replace. */
export function noteBody(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    encryptedContent: toBase64(randomBytes(300)),
    nonce: toBase64(randomBytes(12)),
    salt: toBase64Url(randomBytes(16)),
    ownerToken: toBase64Url(randomBytes(32)),
    authToken: toBase64Url(randomBytes(32)),
    contentType: 'text',
    maxViews: 5,
    expireSec: 3600,
    hasPassword: false,
    ...changes,
  }
}
