/**
 * Reads the server's settings from the environment once, typed, failing fast on a bad value with
 * one line that names the variable, the value and what it accepts. docs/configuration.md lists
 * every variable with its default.
 */
import { resolve } from 'node:path'

import {
  formatBytes,
  parseBytes,
  REQUEST_WS_PROGRESS_WINDOW_MS,
  WS_FRAME_MAX_BYTES,
} from '@fileshare/protocol'

import { DEFAULT_RETRY_POLICY } from './notify/outbox.js'
import { parseNotifyEmail } from './notify/targets.js'
import { SQLITE_DRIVER_SETTINGS, type SqliteDriverSetting } from './db/sqlite-connection.js'

/**
 * The smallest FILE_UPLOAD_WS_MAX_BUFFER: two of the frames clients send (one record with its
 * tag). Reading pauses at half the buffer, and the frame that crossed that mark still arrives,
 * so a smaller buffer would close ordinary uploads with 1009 after `ready`, past any fallback.
 */
export const WS_MAX_BUFFER_MIN = 2 * WS_FRAME_MAX_BYTES

/** FILE_UPLOAD_WS_BUFFER_BUDGET unless FILE_UPLOAD_WS_MAX_BUFFER is larger. */
export const WS_BUFFER_BUDGET_DEFAULT = 128 * 1024 ** 2

/** The largest NOTE_MAX_SIZE: a note's body is held in memory whole, twice over while parsed. */
export const NOTE_MAX_SIZE_LIMIT = 64 * 1024 ** 2

/**
 * CUSTOM_LOGO: a path on this server, a `data:image/` address, or an address under BASE_URL.
 * The pages' Content-Security-Policy loads images from nowhere else, and the web app makes no
 * request to another host.
 */
function logoAddress(value: string | null, baseUrl: string): string | null {
  if (value === null) return null
  const sameOrigin = (() => {
    try {
      return new URL(value).origin === new URL(baseUrl).origin
    } catch {
      return false
    }
  })()
  if (
    (value.startsWith('/') && !value.startsWith('//')) ||
    /^data:image\//i.test(value) ||
    sameOrigin
  ) {
    return value
  }
  throw new ConfigError(
    'CUSTOM_LOGO',
    value,
    'a path on this server (/logo.svg), a data:image/ address or an address under BASE_URL',
  )
}

/** A setting that cannot be used; its message is the one line printed before the server stops. */
export class ConfigError extends Error {
  constructor(variable: string, value: string, accepts: string) {
    super(`${variable} must be ${accepts}, got ${JSON.stringify(value)}`)
    this.name = 'ConfigError'
  }
}

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug'
export type StorageBackend = 'filesystem' | 's3'
export type ServiceName = 'file' | 'note' | 'request'
export type OidcProviderKey = 'generic' | 'pocketid' | 'authentik' | 'keycloak'

export interface Config {
  port: number
  host: string
  /** Public address of the service, without a trailing slash; share links start with it. */
  baseUrl: string
  dataDir: string
  /** DATABASE_URL: a postgres:// address selects PostgreSQL; null keeps SQLite under dataDir. */
  databaseUrl: string | null
  /** DATABASE_POOL_SIZE: connections the PostgreSQL pool opens at most. */
  databasePoolSize: number
  /** SQLITE_DRIVER: the SQLite driver, or auto for node:sqlite where Node has it. */
  sqliteDriver: SqliteDriverSetting
  /**
   * Reverse proxies in front of the service that append to X-Forwarded-For (TRUST_PROXY): 0
   * ignores the header; N takes the client from the N-th address counted from its end.
   */
  trustedProxies: number
  /**
   * WEBCAT_DIR: the folder of the WEBCAT enrollment policy (and signed manifest) served under
   * `/.well-known/webcat/` (docs/deploy.md); null serves none.
   */
  webcatDir: string | null
  logLevel: LogLevel

  rateLimitWindowMs: number
  /** Requests per window and IP; 0 turns the rate limit off. */
  rateLimitMax: number
  /** Abuse reports per rate-limit window and IP (`POST /api/report/:id`); 0 refuses none. */
  reportRateLimitMax: number
  /** Abuse reports per UTC day and reporting network (an IPv4 /24, an IPv6 /48); 0 for none. */
  reportDailyLimit: number
  /** Upload bytes per window and IP; 0 turns the quota off. */
  uploadQuotaBytes: number
  uploadQuotaWindowSec: number
  cleanupIntervalSec: number
  /** Idle time after which an unfinished chunked upload session is dropped. */
  uploadSessionIdleSec: number
  /** Longest wait for running uploads when the server is asked to stop. */
  shutdownGraceMs: number

  customTitle: string
  /** IMPRINT_URL: the operator's imprint (legal notice), linked from the About page. */
  imprintUrl: string | null
  /** PRIVACY_URL: the operator's privacy statement, linked from the About page. */
  privacyUrl: string | null
  customColor: string | null
  customLogo: string | null
  /** Languages the web app offers (BCP 47 tags); empty offers every language it ships. */
  locales: string[]
  /** The web app's language when none of the browser's preferred ones is offered. */
  defaultLocale: string

  fileMaxSize: number
  fileMaxFilesPerUpload: number
  fileExpireOptionsSec: number[]
  fileExpireDefaultSec: number
  fileDownloadOptions: number[]
  fileDownloadDefault: number
  /** How long a counted download's read grant reads further ranges (DOWNLOAD_GRANT_TTL_SEC). */
  downloadGrantTtlSec: number
  /** Largest chunk body of a chunked upload. */
  fileChunkMaxSize: number

  noteMaxSize: number
  noteExpireOptionsSec: number[]
  noteExpireDefaultSec: number
  noteViewOptions: number[]
  noteViewDefault: number

  fileUploadWs: boolean
  fileUploadWsMaxBuffer: number
  /**
   * Bytes all upload sockets together may hold in memory: frames being received and bytes
   * waiting for storage. A socket that would pass it stops reading until bytes drain.
   */
  fileUploadWsBufferBudget: number
  /** Upload sockets one client address may have open at once; 0 means no limit. */
  fileUploadWsMaxPerIp: number
  /** An upload socket delivering less than 1 MiB (or the rest) in this many seconds ends. */
  fileUploadWsProgressWindowSec: number
  /** Bytes per second per upload; 0 means no limit. */
  fileUploadSpeedLimit: number
  fileUploadConcurrentChunks: number
  /** Bytes of chunk bodies held in memory across all chunked uploads. */
  fileUploadChunkBuffer: number

  storageBackend: StorageBackend
  /** Set exactly when STORAGE_BACKEND is s3. */
  s3: S3Settings | null
  enabledServices: ServiceName[]

  oidcIssuer: string | null
  oidcClientId: string | null
  oidcClientSecret: string | null
  oidcProvider: OidcProviderKey
  oidcSessionSecret: string | null
  oidcSessionDurationSec: number
  oidcProtectFiles: boolean
  oidcProtectNotes: boolean
  oidcProtectRequests: boolean

  passwordMaxAttempts: number
  passwordLockoutMs: number

  fileRequestExpireOptionsSec: number[]
  fileRequestUploadOptions: number[]
  fileRequestDownloadOptions: number[]
  fileRequestMaxSize: number
  fileRequestDailyLimit: number
  fileRequestRetentionSec: number
  forceRequestPassword: boolean

  /** METRICS_ENABLED and how `/metrics` is guarded; null while metrics are off. */
  metrics: MetricsSettings | null

  /** How the creator of a file request is told that it received a file. */
  notify: NotifySettings
}

export interface NotifySettings {
  /** SMTP_URL: the mail server notifications are sent through; null: no email notifications. */
  smtpUrl: string | null
  /** NOTIFY_FROM: the sender address of notification mails. */
  from: string
  /** NOTIFY_ALLOW_PRIVATE: whether webhooks may target loopback, private or link-local hosts. */
  allowPrivate: boolean
  /** NOTIFY_WEBHOOK_HTTP_HOSTS: host names a webhook may reach over plain http. */
  webhookHttpHosts: string[]
  /** NOTIFY_DELIVERY_TIMEOUT_MS: the most one delivery may take, whatever the receiver sends. */
  deliveryTimeoutMs: number
  /** ABUSE_EMAIL: where a digest of new abuse reports is mailed; null for nowhere. */
  abuseEmail: string | null
  /** ABUSE_DIGEST_INTERVAL_SEC: the least time between two digests to ABUSE_EMAIL. */
  abuseDigestIntervalSec: number
  /** NOTIFY_EMAIL_DAILY_LIMIT: requests asking for email per creator and UTC day; 0 for none. */
  emailDailyLimit: number
  /** NOTIFY_EMAIL_MAX_PER_REQUEST: notification mails one request may cause. */
  emailMaxPerRequest: number
}

export interface MetricsSettings {
  /** METRICS_TOKEN: the Bearer token a scrape must present; null for none (METRICS_PORT only). */
  token: string | null
  /** METRICS_PORT: `/metrics` on this port at 127.0.0.1 instead of the main port; null for none. */
  port: number | null
}

export interface S3Settings {
  endpoint: string
  region: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
  /** Addresses the bucket as a path (`endpoint/bucket/key`), as most self-hosted servers need. */
  forcePathStyle: boolean
  /** Lifetime of a presigned download URL in seconds. */
  presignedUrlExpirySec: number
  /** Bytes per multipart part; S3 needs at least 5 MiB for every part but the last. */
  partSize: number
}

type Env = Record<string, string | undefined>

/** A longer chain of proxies than this is a mistake in the setting rather than a deployment. */
const MAX_TRUSTED_PROXIES = 16

/** Reads variables, each with a default, and remembers nothing else. */
class Reader {
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback
  }

  /** A value with no default: its absence is an error that says when it is needed. */
  required(name: string, accepts: string): string {
    const value = this.raw(name)
    if (value === undefined) throw new ConfigError(name, '', accepts)
    return value
  }

  optionalString(name: string): string | null {
    return this.raw(name) ?? null
  }

  integer(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const parsed = /^\d+$/.test(value) ? Number(value) : NaN
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new ConfigError(name, value, `an integer from ${min} to ${max}`)
    }
    return parsed
  }

  /** A size in bytes: plain bytes, or a number with KB/KiB, MB/MiB, GB/GiB or TB/TiB (powers of 1024). */
  size(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(name)
    if (value === undefined) return fallback
    let bytes = NaN
    try {
      bytes = parseBytes(value)
    } catch {
      // Said below, with the variable's name and its range.
    }
    if (!Number.isSafeInteger(bytes) || bytes < min || bytes > max) {
      const range =
        max === Number.MAX_SAFE_INTEGER
          ? `of at least ${min} bytes`
          : `from ${min} to ${max} bytes (${formatBytes(max, { locale: 'en' })})`
      throw new ConfigError(name, value, `a size ${range}, such as 1048576, 512KB, 100MB or 2GB`)
    }
    return bytes
  }

  /** TRUST_PROXY: a boolean (one proxy or none) or the number of proxies in the chain. */
  proxyCount(name: string): number {
    const value = this.raw(name)
    if (value === undefined) return 0
    if (/^(true|yes|on)$/i.test(value)) return 1
    if (/^(false|no|off)$/i.test(value)) return 0
    const count = /^\d{1,2}$/.test(value) ? Number(value) : NaN
    if (!(count >= 0 && count <= MAX_TRUSTED_PROXIES)) {
      throw new ConfigError(
        name,
        value,
        `true, false, or the number of proxies in front of the service (0 to ${MAX_TRUSTED_PROXIES})`,
      )
    }
    return count
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)
    if (value === undefined) return fallback
    if (/^(true|1|yes|on)$/i.test(value)) return true
    if (/^(false|0|no|off)$/i.test(value)) return false
    throw new ConfigError(name, value, 'true or false')
  }

  /** A comma-separated list of distinct positive integers, kept in ascending order. */
  integerList(name: string, fallback: number[]): number[] {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const items = value.split(',').map((item) => item.trim())
    const numbers = items.map((item) => (/^\d+$/.test(item) ? Number(item) : NaN))
    if (
      numbers.some((n) => !Number.isSafeInteger(n) || n < 1) ||
      new Set(numbers).size !== numbers.length
    ) {
      throw new ConfigError(name, value, 'a comma-separated list of distinct positive integers')
    }
    return numbers.sort((a, b) => a - b)
  }

  oneOf<T extends string>(name: string, fallback: T, options: readonly T[]): T {
    const value = this.raw(name)
    if (value === undefined) return fallback
    if (!(options as readonly string[]).includes(value)) {
      throw new ConfigError(name, value, `one of ${options.join(', ')}`)
    }
    return value as T
  }

  listOf<T extends string>(name: string, fallback: T[], options: readonly T[]): T[] {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
    if (items.some((item) => !(options as readonly string[]).includes(item))) {
      throw new ConfigError(name, value, `a comma-separated list of ${options.join(', ')}`)
    }
    return [...new Set(items)] as T[]
  }

  /** A default that must be one of the options; without the variable, the preferred value if listed. */
  defaultOf(name: string, options: number[], preferred: number): number {
    const fallback = options.includes(preferred) ? preferred : options[0]!
    const value = this.integer(name, fallback, 1)
    if (!options.includes(value)) {
      throw new ConfigError(name, String(value), `one of ${options.join(', ')}`)
    }
    return value
  }

  url(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw new ConfigError(name, value, 'an http or https URL')
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      throw new ConfigError(name, value, 'an http or https URL without query or fragment')
    }
    return url.href.replace(/\/+$/, '')
  }

  /** An optional link for people to follow (imprint, privacy): http or https only, never a script. */
  linkUrl(name: string): string | null {
    const value = this.raw(name)
    if (value === undefined) return null
    let url: URL | null = null
    try {
      url = new URL(value)
    } catch {
      // Said below.
    }
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigError(name, value, 'an http or https URL')
    }
    return url.href
  }

  /** An OIDC issuer: an http or https URL, kept as written since ID tokens must name it exactly. */
  issuer(name: string): string | null {
    const value = this.raw(name)
    if (value === undefined) return null
    let url: URL | undefined
    try {
      url = new URL(value)
    } catch {
      url = undefined
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      throw new ConfigError(name, value, 'an http or https URL without query or fragment')
    }
    return value
  }

  host(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback
    if (!/^[A-Za-z0-9.:[\]%_-]+$/.test(value)) {
      throw new ConfigError(name, value, 'a host name or an IPv4 or IPv6 address')
    }
    return value
  }

  /** A comma-separated list of distinct language tags such as `de` or `pt-BR`, canonicalised. */
  localeList(name: string): string[] {
    const value = this.raw(name)
    if (value === undefined) return []
    const items = value.split(',').map((item) => canonicalLocale(item.trim()))
    if (items.some((item) => item === null) || new Set(items).size !== items.length) {
      throw new ConfigError(name, value, `a comma-separated list of distinct ${LOCALE_FORMAT}`)
    }
    return items as string[]
  }

  /** A language tag that must be one of `offered` (any tag when it is empty). */
  localeOf(name: string, offered: string[], preferred: string): string {
    const value = this.raw(name)
    if (value === undefined)
      return offered.length === 0 || offered.includes(preferred) ? preferred : offered[0]!
    const tag = canonicalLocale(value)
    if (tag === null) throw new ConfigError(name, value, LOCALE_FORMAT)
    if (offered.length > 0 && !offered.includes(tag)) {
      throw new ConfigError(name, value, `one of LOCALES (${offered.join(', ')})`)
    }
    return tag
  }

  color(name: string): string | null {
    const value = this.raw(name)
    if (value === undefined) return null
    if (!/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) {
      throw new ConfigError(name, value, 'a hex color such as #3b82f6')
    }
    return value
  }
}

const LOCALE_FORMAT = 'language tags such as en, de or pt-BR'

/**
 * A language tag in its canonical spelling (`pt-br` → `pt-BR`), or null when it is not a
 * language with an optional script and region (BCP 47, RFC 5646 §2.1); extensions are refused.
 */
function canonicalLocale(value: string): string | null {
  let tag: string
  try {
    ;[tag = ''] = Intl.getCanonicalLocales(value)
  } catch {
    return null
  }
  return /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-(?:[A-Z]{2}|\d{3}))?$/.test(tag) ? tag : null
}

const DAY = 86_400
const GiB = 1024 ** 3

export function loadConfig(env: Env = process.env): Config {
  const read = new Reader(env)
  const port = read.integer('PORT', 3000, 0, 65535)
  const fileExpireOptionsSec = read.integerList('FILE_EXPIRE_OPTIONS_SEC', [
    300,
    3600,
    DAY,
    7 * DAY,
  ])
  const fileDownloadOptions = read.integerList(
    'FILE_DOWNLOAD_OPTIONS',
    [1, 2, 3, 5, 10, 20, 50, 100],
  )
  const noteExpireOptionsSec = read.integerList('NOTE_EXPIRE_OPTIONS_SEC', [
    300,
    3600,
    DAY,
    7 * DAY,
  ])
  const noteViewOptions = read.integerList('NOTE_VIEW_OPTIONS', [1, 2, 3, 5, 10, 100])

  const storageBackend = read.oneOf<StorageBackend>('STORAGE_BACKEND', 'filesystem', [
    'filesystem',
    's3',
  ])

  const baseUrl = read.url('BASE_URL', `http://localhost:${port}`)
  const fileUploadWsMaxBuffer = read.size(
    'FILE_UPLOAD_WS_MAX_BUFFER',
    32 * 1024 ** 2,
    WS_MAX_BUFFER_MIN,
  )
  const locales = read.localeList('LOCALES')
  const config: Config = {
    port,
    host: read.host('HOST', '0.0.0.0'),
    baseUrl,
    dataDir: resolve(read.string('DATA_DIR', './data')),
    databaseUrl: databaseUrl(read.optionalString('DATABASE_URL')),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    sqliteDriver: read.oneOf('SQLITE_DRIVER', 'auto', SQLITE_DRIVER_SETTINGS),
    trustedProxies: read.proxyCount('TRUST_PROXY'),
    webcatDir: optionalPath(read.optionalString('WEBCAT_DIR')),
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

    // A note travels as one JSON body, read whole and parsed as one string.
    noteMaxSize: read.size('NOTE_MAX_SIZE', 1024 ** 2, 1, NOTE_MAX_SIZE_LIMIT),
    noteExpireOptionsSec,
    noteExpireDefaultSec: read.defaultOf('NOTE_EXPIRE_DEFAULT_SEC', noteExpireOptionsSec, DAY),
    noteViewOptions,
    noteViewDefault: read.defaultOf('NOTE_VIEW_DEFAULT', noteViewOptions, 1),

    fileUploadWs: read.boolean('FILE_UPLOAD_WS', true),
    fileUploadWsMaxBuffer,
    // One frame of the largest size must fit, or a socket could wait for it for ever.
    fileUploadWsBufferBudget: read.size(
      'FILE_UPLOAD_WS_BUFFER_BUDGET',
      Math.max(WS_BUFFER_BUDGET_DEFAULT, fileUploadWsMaxBuffer),
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
    enabledServices: read.listOf(
      'ENABLED_SERVICES',
      ['file', 'note', 'request'],
      ['file', 'note', 'request'],
    ),

    oidcIssuer: read.issuer('OIDC_ISSUER'),
    oidcClientId: read.optionalString('OIDC_CLIENT_ID'),
    oidcClientSecret: read.optionalString('OIDC_CLIENT_SECRET'),
    oidcProvider: read.oneOf('OIDC_PROVIDER', 'generic', [
      'generic',
      'pocketid',
      'authentik',
      'keycloak',
    ]),
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
  for (const [variable, on] of [
    ['OIDC_PROTECT_FILES', config.oidcProtectFiles],
    ['OIDC_PROTECT_NOTES', config.oidcProtectNotes],
    ['OIDC_PROTECT_REQUESTS', config.oidcProtectRequests],
  ] as const) {
    // A protected creation with no way to log in could never succeed.
    if (on && !loginEnabled(config)) {
      throw new ConfigError(
        variable,
        'true',
        'false unless OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set',
      )
    }
  }
  // The session secret signs every login (spec: Optional login 5); a short one can be guessed.
  const secret = config.oidcSessionSecret
  if (loginEnabled(config) && (secret === null || secret.length < SESSION_SECRET_MIN_LENGTH)) {
    throw new ConfigError(
      'OIDC_SESSION_SECRET',
      // The value itself is a secret and stays out of the log.
      secret === null ? '' : `<${secret.length} characters>`,
      `at least ${SESSION_SECRET_MIN_LENGTH} characters when OIDC login is enabled`,
    )
  }
  return config
}

/** A file or folder named by a setting, resolved against the working folder; null when unset or empty. */
function optionalPath(value: string | null): string | null {
  return value === null || value === '' ? null : resolve(value)
}

/** DATABASE_URL: a postgres:// or postgresql:// address with a host, or unset. */
function databaseUrl(value: string | null): string | null {
  if (value === null || value === '') return null
  const valid = (() => {
    try {
      const url = new URL(value)
      const host = url.host !== '' || url.searchParams.has('host')
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && host
    } catch {
      return false
    }
  })()
  if (!valid) {
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
function readNotify(read: Reader, baseUrl: string): NotifySettings {
  const smtpUrl = read.optionalString('SMTP_URL') || null
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
  }
  if (abuseEmail !== null && smtpUrl === null) {
    throw new ConfigError('ABUSE_EMAIL', abuseEmail, 'unset unless SMTP_URL is set')
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

/** Shortest METRICS_TOKEN accepted: as long as a session secret, so it cannot be guessed. */
export const METRICS_TOKEN_MIN_LENGTH = 32

/**
 * The metrics settings: off unless METRICS_ENABLED, and then guarded by METRICS_TOKEN, served
 * only on METRICS_PORT at 127.0.0.1, or both; never open on the main port.
 */
function readMetrics(read: Reader, mainPort: number): MetricsSettings | null {
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
  if (token !== null && (token.length < METRICS_TOKEN_MIN_LENGTH || /\s/.test(token))) {
    throw new ConfigError(
      'METRICS_TOKEN',
      // The value itself is a secret and stays out of the log.
      `<${token.length} characters>`,
      `at least ${METRICS_TOKEN_MIN_LENGTH} characters without spaces`,
    )
  }
  if (port !== null && port === mainPort) {
    throw new ConfigError('METRICS_PORT', String(port), `another port than PORT (${mainPort})`)
  }
  return { token, port }
}

/** Shortest OIDC_SESSION_SECRET accepted: 32 characters, a 256-bit HS256 key at the least. */
export const SESSION_SECRET_MIN_LENGTH = 32

/** The S3 settings; the endpoint, bucket and keys have no default (spec: STORAGE_BACKEND). */
function readS3(read: Reader): S3Settings {
  return {
    endpoint: read.url(
      'S3_ENDPOINT',
      read.required('S3_ENDPOINT', 'set when STORAGE_BACKEND is s3'),
    ),
    region: read.string('S3_REGION', 'us-east-1'),
    bucket: read.required('S3_BUCKET', 'set when STORAGE_BACKEND is s3'),
    accessKeyId: read.required('S3_ACCESS_KEY_ID', 'set when STORAGE_BACKEND is s3'),
    secretAccessKey: read.required('S3_SECRET_ACCESS_KEY', 'set when STORAGE_BACKEND is s3'),
    forcePathStyle: read.boolean('S3_FORCE_PATH_STYLE', false),
    presignedUrlExpirySec: read.integer('S3_PRESIGNED_URL_EXPIRY', 300, 1, 7 * DAY),
    // S3 refuses parts under 5 MiB (except the last) and over 5 GiB.
    partSize: read.size('S3_PART_SIZE', 8 * 1024 ** 2, 5 * 1024 ** 2),
  }
}

/** Whether the login routes are active: all three OIDC variables are set (spec: Login routes). */
export function loginEnabled(config: Config): boolean {
  return (
    config.oidcIssuer !== null && config.oidcClientId !== null && config.oidcClientSecret !== null
  )
}
