/**
 * The server's settings: read from the environment once, typed, failing fast on a bad value with
 * one line that names the variable, the value and what it accepts. Their type, Config, is what
 * every module reads; docs/configuration.md lists every variable with its default.
 * May touch: process state (the environment it is given, process.env by default).
 */
import { resolve } from 'node:path'

import {
  REQUEST_WS_PROGRESS_WINDOW_MS,
  UPLOAD_CHUNK_BYTES,
  WS_FRAME_MAX_BYTES,
} from '@fileshare/protocol'

import { DEFAULT_RETRY_POLICY } from './notify/outbox.js'
import { parseNotifyEmail } from './notify/email.js'
import { SQLITE_DRIVER_SETTINGS } from './db/sqlite-connection.js'
import { ConfigError, Reader, parseUrl, type Env } from './config-reader.js'

export { ConfigError }

export type Config = ReturnType<typeof loadConfig>
export type LogLevel = Config['logLevel']
export type ServiceName = Config['enabledServices'][number]
export type OidcProviderKey = Config['oidcProvider']
export type NotifySettings = Config['notify']
export type MetricsSettings = NonNullable<Config['metrics']>
export type S3Settings = NonNullable<Config['s3']>

/**
 * The smallest FILE_UPLOAD_WS_MAX_BUFFER: two of the frames clients send (one record with its
 * tag). Reading pauses at half the buffer, and the frame that crossed that mark still arrives,
 * so a smaller buffer would close ordinary uploads with 1009 after `ready`, past any fallback.
 */
export const WS_MAX_BUFFER_MIN = 2 * WS_FRAME_MAX_BYTES

/** Shortest OIDC_SESSION_SECRET and METRICS_TOKEN: a 256-bit HS256 key, so neither can be guessed. */
const SECRET_MIN_LENGTH = 32

const DAY = 86_400
const GiB = 1024 ** 3
const EXPIRE_OPTIONS_SEC: readonly number[] = [300, 3600, DAY, 7 * DAY]
const SERVICES = ['file', 'note', 'request'] as const
const OIDC_PROVIDERS = ['generic', 'pocketid', 'authentik', 'keycloak'] as const
const S3_NEEDED = 'set when STORAGE_BACKEND is s3'

/** Whether the login routes are active: all three OIDC variables are set (spec: Login routes). */
export function loginEnabled(
  config: Record<'oidcIssuer' | 'oidcClientId' | 'oidcClientSecret', string | null>,
): boolean {
  return (
    config.oidcIssuer !== null && config.oidcClientId !== null && config.oidcClientSecret !== null
  )
}

/**
 * The chunk size clients are told to send (GET /api/config `uploadChunkSize`): 10 MB unless the
 * server accepts less per chunk. Chunked sessions kept in the database lay out their chunks by it.
 */
export function uploadChunkSize(config: Config): number {
  return Math.min(UPLOAD_CHUNK_BYTES, config.fileChunkMaxSize)
}

/**
 * CUSTOM_LOGO: a path on this server, a `data:image/` address, or an address under BASE_URL.
 * The pages' Content-Security-Policy loads images from nowhere else, and the web app makes no
 * request to another host.
 */
function logoAddress(value: string | null, baseUrl: string): string | null {
  if (value === null) return null
  const local = value.startsWith('/') && !value.startsWith('//')
  const sameOrigin = parseUrl(value)?.origin === new URL(baseUrl).origin
  if (local || /^data:image\//i.test(value) || sameOrigin) return value
  throw new ConfigError(
    'CUSTOM_LOGO',
    value,
    'a path on this server (/logo.svg), a data:image/ address or an address under BASE_URL',
  )
}

export function loadConfig(env: Env = process.env) {
  const read = new Reader(env)
  const port = read.integer('PORT', 3000, 0, 65535)
  const fileExpireOptionsSec = read.integerList('FILE_EXPIRE_OPTIONS_SEC', [...EXPIRE_OPTIONS_SEC])
  const fileDownloadOptions = read.integerList(
    'FILE_DOWNLOAD_OPTIONS',
    [1, 2, 3, 5, 10, 20, 50, 100],
  )
  const noteExpireOptionsSec = read.integerList('NOTE_EXPIRE_OPTIONS_SEC', [...EXPIRE_OPTIONS_SEC])
  const noteViewOptions = read.integerList('NOTE_VIEW_OPTIONS', [1, 2, 3, 5, 10, 100])

  const storageBackend = read.oneOf('STORAGE_BACKEND', 'filesystem', ['filesystem', 's3'])

  const baseUrl = read.url('BASE_URL', `http://localhost:${port}`)
  const fileUploadWsMaxBuffer = read.size(
    'FILE_UPLOAD_WS_MAX_BUFFER',
    32 * 1024 ** 2,
    WS_MAX_BUFFER_MIN,
  )
  const locales = read.localeList('LOCALES')
  const webcatDir = read.optionalString('WEBCAT_DIR')
  const config = {
    port,
    host: read.host('HOST', '0.0.0.0'),
    baseUrl,
    dataDir: resolve(read.string('DATA_DIR', './data')),
    databaseUrl: databaseUrl(read.optionalString('DATABASE_URL')),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    sqliteDriver: read.oneOf('SQLITE_DRIVER', 'auto', SQLITE_DRIVER_SETTINGS),
    trustedProxies: read.proxyCount('TRUST_PROXY'),
    webcatDir: webcatDir === null ? null : resolve(webcatDir),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['silent', 'error', 'warn', 'info', 'debug']),

    rateLimitWindowMs: read.integer('RATE_LIMIT_WINDOW', 60_000, 1000),
    rateLimitMax: read.integer('RATE_LIMIT_MAX', 600),
    reportRateLimitMax: read.integer('REPORT_RATE_LIMIT_MAX', 3),
    reportDailyLimit: read.integer('REPORT_DAILY_LIMIT', 10),
    uploadQuotaBytes: read.size('FILE_UPLOAD_QUOTA_BYTES', 0),
    uploadQuotaWindowSec: read.integer('FILE_UPLOAD_QUOTA_WINDOW', DAY, 1),
    cleanupIntervalSec: read.integer('CLEANUP_INTERVAL', 60, 1),
    uploadSessionIdleSec: read.integer('UPLOAD_SESSION_IDLE_SEC', 3600, 1),
    shutdownGraceMs: read.integer('SHUTDOWN_GRACE_MS', 30_000),

    customTitle: read.string('CUSTOM_TITLE', 'fileshare'),
    customColor: read.color('CUSTOM_COLOR'),
    customLogo: logoAddress(read.optionalString('CUSTOM_LOGO'), baseUrl),
    imprintUrl: read.linkUrl('IMPRINT_URL'),
    privacyUrl: read.linkUrl('PRIVACY_URL'),
    locales,
    defaultLocale: read.localeOf('DEFAULT_LOCALE', locales, 'en'),

    fileMaxSize: read.size('FILE_MAX_SIZE', 10 * GiB, 1),
    fileMaxFilesPerUpload: read.integer('FILE_MAX_FILES_PER_UPLOAD', 1000, 1),
    fileExpireOptionsSec,
    fileExpireDefaultSec: read.defaultOf('FILE_EXPIRE_DEFAULT_SEC', fileExpireOptionsSec, DAY),
    fileDownloadOptions,
    fileDownloadDefault: read.defaultOf('FILE_DOWNLOAD_DEFAULT', fileDownloadOptions, 1),
    downloadGrantTtlSec: read.integer('DOWNLOAD_GRANT_TTL_SEC', 6 * 3600, 60, 7 * DAY),
    fileChunkMaxSize: read.size('FILE_CHUNK_MAX_SIZE', 16 * 1024 ** 2, 1),

    // A note travels as one JSON body, held in memory whole, twice over while parsed.
    noteMaxSize: read.size('NOTE_MAX_SIZE', 1024 ** 2, 1, 64 * 1024 ** 2),
    noteExpireOptionsSec,
    noteExpireDefaultSec: read.defaultOf('NOTE_EXPIRE_DEFAULT_SEC', noteExpireOptionsSec, DAY),
    noteViewOptions,
    noteViewDefault: read.defaultOf('NOTE_VIEW_DEFAULT', noteViewOptions, 1),

    fileUploadWs: read.boolean('FILE_UPLOAD_WS', true),
    fileUploadWsMaxBuffer,
    // One frame of the largest size must fit, or a socket could wait for it for ever.
    fileUploadWsBufferBudget: read.size(
      'FILE_UPLOAD_WS_BUFFER_BUDGET',
      Math.max(128 * 1024 ** 2, fileUploadWsMaxBuffer),
      fileUploadWsMaxBuffer,
    ),
    fileUploadWsMaxPerIp: read.integer('FILE_UPLOAD_WS_MAX_PER_IP', 16),
    fileUploadWsProgressWindowSec: read.integer(
      'FILE_UPLOAD_WS_PROGRESS_WINDOW_SEC',
      REQUEST_WS_PROGRESS_WINDOW_MS / 1000,
      1,
    ),
    fileUploadSpeedLimit: read.size('FILE_UPLOAD_SPEED_LIMIT', 0),
    fileUploadConcurrentChunks: read.integer('FILE_UPLOAD_CONCURRENT_CHUNKS', 3, 1, 64),
    fileUploadChunkBuffer: read.size('FILE_UPLOAD_CHUNK_BUFFER', 256 * 1024 ** 2),

    storageBackend,
    s3: storageBackend === 's3' ? readS3(read) : null,
    enabledServices: read.listOf('ENABLED_SERVICES', [...SERVICES], SERVICES),

    oidcIssuer: read.issuer('OIDC_ISSUER'),
    oidcClientId: read.optionalString('OIDC_CLIENT_ID'),
    oidcClientSecret: read.optionalString('OIDC_CLIENT_SECRET'),
    oidcProvider: read.oneOf('OIDC_PROVIDER', 'generic', OIDC_PROVIDERS),
    oidcSessionSecret: read.optionalString('OIDC_SESSION_SECRET'),
    // Browsers cap a cookie's Max-Age at 400 days (RFC 6265bis §5.5), and so does Hono.
    oidcSessionDurationSec: read.integer('OIDC_SESSION_DURATION', DAY, 60, 400 * DAY),
    oidcProtectFiles: read.boolean('OIDC_PROTECT_FILES', false),
    oidcProtectNotes: read.boolean('OIDC_PROTECT_NOTES', false),
    oidcProtectRequests: read.boolean('OIDC_PROTECT_REQUESTS', false),

    passwordMaxAttempts: read.integer('PASSWORD_MAX_ATTEMPTS', 5, 1),
    passwordLockoutMs: read.integer('PASSWORD_LOCKOUT_MS', 15 * 60_000, 1),

    fileRequestExpireOptionsSec: read.integerList('FILE_REQUEST_EXPIRE_OPTIONS_SEC', [
      DAY,
      7 * DAY,
      30 * DAY,
    ]),
    fileRequestUploadOptions: read.integerList('FILE_REQUEST_UPLOAD_OPTIONS', [1, 5, 10, 25, 50]),
    fileRequestDownloadOptions: read.integerList('FILE_REQUEST_DOWNLOAD_OPTIONS', [1, 3, 5, 10]),
    fileRequestMaxSize: read.size('FILE_REQUEST_MAX_SIZE', 2 * GiB, 1),
    fileRequestDailyLimit: read.integer('FILE_REQUEST_DAILY_LIMIT', 10),
    fileRequestRetentionSec: read.integer('FILE_REQUEST_RETENTION_SEC', 7 * DAY, 60),
    forceRequestPassword: read.boolean('FORCE_REQUEST_PASSWORD', false),

    metrics: readMetrics(read, port),
    notify: readNotify(read, baseUrl),
  }
  // A protected creation with no way to log in could never succeed.
  for (const variable of ['OIDC_PROTECT_FILES', 'OIDC_PROTECT_NOTES', 'OIDC_PROTECT_REQUESTS']) {
    if (read.boolean(variable, false) && !loginEnabled(config)) {
      const needs = 'false unless OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set'
      throw new ConfigError(variable, 'true', needs)
    }
  }
  // The session secret signs every login (spec: Optional login 5); a short one can be guessed.
  const secret = config.oidcSessionSecret
  if (loginEnabled(config) && (secret === null || secret.length < SECRET_MIN_LENGTH)) {
    throw weakSecret('OIDC_SESSION_SECRET', secret, 'when OIDC login is enabled')
  }
  return config
}

/** A secret refused: the value itself stays out of the log, and only its length is named. */
function weakSecret(variable: string, secret: string | null, needs: string): ConfigError {
  const value = secret === null ? '' : `<${secret.length} characters>`
  return new ConfigError(variable, value, `at least ${SECRET_MIN_LENGTH} characters ${needs}`)
}

/** DATABASE_URL: a postgres:// or postgresql:// address with a host, or unset. */
function databaseUrl(value: string | null): string | null {
  if (value === null) return null
  const url = parseUrl(value)
  const hasHost = url !== null && (url.host !== '' || url.searchParams.has('host'))
  if (!hasHost || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    // The address may hold a password: the message names the variable, not the value.
    throw new ConfigError(
      'DATABASE_URL',
      '(hidden)',
      'a postgres://user:password@host:port/database address',
    )
  }
  return value
}

/** The notification settings; the SMTP address may hold a password and stays out of errors. */
function readNotify(read: Reader, baseUrl: string) {
  const smtpUrl = read.optionalString('SMTP_URL')
  if (smtpUrl !== null && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL', '(hidden)', 'an smtp:// or smtps:// address')
  }
  const from = read.string('NOTIFY_FROM', `fileshare@${new URL(baseUrl).hostname}`)
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(from) && !/^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError('NOTIFY_FROM', from, 'an email address, optionally as "Name <address>"')
  }
  const hosts = (read.optionalString('NOTIFY_WEBHOOK_HTTP_HOSTS') ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '')
  const abuseEmail = read.optionalString('ABUSE_EMAIL')
  if (abuseEmail !== null) {
    // The check a request's notifyEmail passes: one rule for every address the mailer sends to.
    try {
      parseNotifyEmail(abuseEmail)
    } catch {
      throw new ConfigError('ABUSE_EMAIL', abuseEmail, 'an email address')
    }
    if (smtpUrl === null) {
      throw new ConfigError('ABUSE_EMAIL', abuseEmail, 'unset unless SMTP_URL is set')
    }
  }
  return {
    smtpUrl,
    abuseEmail,
    abuseDigestIntervalSec: read.integer('ABUSE_DIGEST_INTERVAL_SEC', 900, 1),
    emailDailyLimit: read.integer('NOTIFY_EMAIL_DAILY_LIMIT', 5),
    emailMaxPerRequest: read.integer('NOTIFY_EMAIL_MAX_PER_REQUEST', 10, 1),
    from,
    allowPrivate: read.boolean('NOTIFY_ALLOW_PRIVATE', false),
    webhookHttpHosts: [...new Set(hosts)],
    // Well within the outbox's claim on a row, so no other instance takes a row still under way.
    deliveryTimeoutMs: read.integer(
      'NOTIFY_DELIVERY_TIMEOUT_MS',
      10_000,
      100,
      DEFAULT_RETRY_POLICY.leaseMs / 2,
    ),
  }
}

/**
 * The metrics settings: off unless METRICS_ENABLED, and then guarded by METRICS_TOKEN, served
 * only on METRICS_PORT at 127.0.0.1, or both; never open on the main port.
 */
function readMetrics(read: Reader, mainPort: number) {
  if (!read.boolean('METRICS_ENABLED', false)) return null
  const token = read.optionalString('METRICS_TOKEN')
  const port =
    read.optionalString('METRICS_PORT') === null ? null : read.integer('METRICS_PORT', 0, 1, 65535)
  if (token === null && port === null) {
    throw new ConfigError(
      'METRICS_ENABLED',
      'true',
      'false unless METRICS_TOKEN or METRICS_PORT is set (/metrics is never open on the main port)',
    )
  }
  if (token !== null && (token.length < SECRET_MIN_LENGTH || /\s/.test(token))) {
    throw weakSecret('METRICS_TOKEN', token, 'without spaces')
  }
  if (port === mainPort) {
    throw new ConfigError('METRICS_PORT', String(port), `another port than PORT (${mainPort})`)
  }
  return { token, port }
}

/** The S3 settings; the endpoint, bucket and keys have no default (spec: STORAGE_BACKEND). */
function readS3(read: Reader) {
  return {
    endpoint: read.url('S3_ENDPOINT', read.required('S3_ENDPOINT', S3_NEEDED)),
    region: read.string('S3_REGION', 'us-east-1'),
    bucket: read.required('S3_BUCKET', S3_NEEDED),
    accessKeyId: read.required('S3_ACCESS_KEY_ID', S3_NEEDED),
    secretAccessKey: read.required('S3_SECRET_ACCESS_KEY', S3_NEEDED),
    // Addresses the bucket as a path (`endpoint/bucket/key`), as most self-hosted servers need.
    forcePathStyle: read.boolean('S3_FORCE_PATH_STYLE', false),
    presignedUrlExpirySec: read.integer('S3_PRESIGNED_URL_EXPIRY', 300, 1, 7 * DAY),
    // S3 refuses parts under 5 MiB (except the last) and over 5 GiB.
    partSize: read.size('S3_PART_SIZE', 8 * 1024 ** 2, 5 * 1024 ** 2),
  }
}
