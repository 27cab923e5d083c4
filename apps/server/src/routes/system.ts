/**
 * Service routes that need no credential: `GET /api/config`, `GET /api/health` and
 * `GET /api/quota` (spec: Endpoints), and this project's `GET /api/ready` for load balancers
 * (docs/api.md).
 * May touch: nothing directly; the quota and the health check through what it is given.
 */
import { HEALTH_STATUS_OK, type ConfigResponse, type HealthResponse } from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import { loginEnabled, uploadChunkSize, type Config } from '../config.js'
import type { UploadQuota } from '../limits/quota.js'

export interface SystemRouteDeps {
  config: Config
  version: string
  now: () => Date
  quota: Pick<UploadQuota, 'status'>
  /** Whether this instance reaches its database and its storage now. */
  checkHealth: () => Promise<HealthChecks>
  /** True once shutdown has begun: the instance finishes what it has and takes nothing new. */
  draining: () => boolean
  ipOf: (c: Context) => string
}

/** This project's `status` of a server that cannot do its work; answered with 503. */
export const HEALTH_STATUS_UNAVAILABLE = 'unavailable'

export interface HealthChecks {
  database: boolean
  storage: boolean
}

/** The health route's body: the spec's fields, and one extra field per part it depends on. */
export interface HealthBody extends HealthResponse {
  database: string
  storage: string
}

/** Why `GET /api/ready` answers 503, in the order they are checked. */
export type NotReadyReason = 'draining' | 'database' | 'storage'

const UNCHECKED: HealthChecks = { database: false, storage: false }

const statusOf = (ok: boolean): string => (ok ? HEALTH_STATUS_OK : HEALTH_STATUS_UNAVAILABLE)

export function systemRoutes(deps: SystemRouteDeps): Hono {
  const config = configResponse(deps.config)
  return new Hono()
    .get('/config', (c) => c.json(config))
    .get('/health', async (c) => {
      const checks = await deps.checkHealth().catch(() => UNCHECKED)
      const healthy = checks.database && checks.storage
      const body: HealthBody = {
        status: statusOf(healthy),
        version: deps.version,
        timestamp: deps.now().toISOString(),
        database: statusOf(checks.database),
        storage: statusOf(checks.storage),
      }
      return c.json(body, healthy ? 200 : 503)
    })
    .get('/ready', async (c) => {
      const reason = await notReadyReason(deps)
      if (reason === undefined) return c.json({ ready: true }, 200)
      return c.json({ ready: false, reason }, 503)
    })
    .get('/quota', async (c) => c.json(await deps.quota.status(deps.ipOf(c))))
}

/** Why this instance should get no new requests now, or undefined when it may. */
async function notReadyReason(deps: SystemRouteDeps): Promise<NotReadyReason | undefined> {
  if (deps.draining()) return 'draining'
  const checks = await deps.checkHealth().catch(() => UNCHECKED)
  if (!checks.database) return 'database'
  if (!checks.storage) return 'storage'
  return undefined
}

/** The settings a client needs, fixed for the process's lifetime (spec: GET /api/config). */
export function configResponse(config: Config): ConfigResponse {
  const login = loginEnabled(config)
  return {
    maxFileSize: config.fileMaxSize,
    maxFilesPerUpload: config.fileMaxFilesPerUpload,
    expireOptions: config.fileExpireOptionsSec,
    defaultExpire: config.fileExpireDefaultSec,
    downloadOptions: config.fileDownloadOptions,
    defaultDownload: config.fileDownloadDefault,
    customTitle: config.customTitle,
    customColor: config.customColor,
    customLogo: config.customLogo,
    imprintUrl: config.imprintUrl,
    privacyUrl: config.privacyUrl,
    fileRequestsEnabled: config.enabledServices.includes('request'),

    uploadSpeedLimit: config.fileUploadSpeedLimit,
    webSocketUploadEnabled: config.fileUploadWs,
    uploadConcurrentChunks: config.fileUploadConcurrentChunks,
    uploadChunkSize: uploadChunkSize(config),
    noteMaxSize: config.noteMaxSize,
    noteExpireOptions: config.noteExpireOptionsSec,
    noteDefaultExpire: config.noteExpireDefaultSec,
    noteViewOptions: config.noteViewOptions,
    noteDefaultViews: config.noteViewDefault,
    fileRequestExpireOptions: config.fileRequestExpireOptionsSec,
    fileRequestUploadOptions: config.fileRequestUploadOptions,
    fileRequestDownloadOptions: config.fileRequestDownloadOptions,
    fileRequestMaxSize: config.fileRequestMaxSize,
    fileRequestDailyLimit: config.fileRequestDailyLimit,
    fileRequestPasswordRequired: config.forceRequestPassword,
    notifyEmailEnabled: config.notify.smtpUrl !== null,
    loginEnabled: login,
    loginRequired: {
      files: login && config.oidcProtectFiles,
      notes: login && config.oidcProtectNotes,
      requests: login && config.oidcProtectRequests,
    },
    locales: config.locales,
    defaultLocale: config.defaultLocale,
  }
}
