/**
 * The server's settings, typed: what every other module reads of them, and the limits some of
 * them share with their checks. load-config.ts reads them from the environment.
 * May touch: nothing (pure).
 */
import { UPLOAD_CHUNK_BYTES, WS_FRAME_MAX_BYTES } from '@fileshare/protocol'

import type { SqliteDriverSetting } from './db/sqlite-connection.js'

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

/** Shortest METRICS_TOKEN accepted: as long as a session secret, so it cannot be guessed. */
export const METRICS_TOKEN_MIN_LENGTH = 32

/** Shortest OIDC_SESSION_SECRET accepted: 32 characters, a 256-bit HS256 key at the least. */
export const SESSION_SECRET_MIN_LENGTH = 32

/**
 * The chunk size clients are told to send (GET /api/config `uploadChunkSize`): 10 MB unless the
 * server accepts less per chunk. Chunked sessions kept in the database lay out their chunks by it.
 */
export function uploadChunkSize(config: Config): number {
  return Math.min(UPLOAD_CHUNK_BYTES, config.fileChunkMaxSize)
}

/** Whether the login routes are active: all three OIDC variables are set (spec: Login routes). */
export function loginEnabled(config: Config): boolean {
  return (
    config.oidcIssuer !== null && config.oidcClientId !== null && config.oidcClientSecret !== null
  )
}
