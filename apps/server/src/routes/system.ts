/**
 * Service routes that need no credential: `GET /api/config`, `GET /api/health`, `GET /api/quota`
 * (spec: Endpoints), and this project's `GET /api/ready` for load balancers (docs/api.md).
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

export interface HealthChecks {
  database: boolean
  storage: boolean
}

/** This project's `status` of a part that cannot do its work ('unavailable'), answered with 503. */
const statusOf = (ok: boolean): string => (ok ? HEALTH_STATUS_OK : 'unavailable')

export function systemRoutes(deps: SystemRouteDeps): Hono {
  const config = configResponse(deps.config)
  const check = () => deps.checkHealth().catch(() => ({ database: false, storage: false }))
  return new Hono()
    .get('/config', (c) => c.json(config))
    .get('/health', async (c) => {
      const { database, storage } = await check()
      const spec: HealthResponse = {
        status: statusOf(database && storage),
        version: deps.version,
        timestamp: deps.now().toISOString(),
      }
      // One extra field per part the service depends on.
      const body = { ...spec, database: statusOf(database), storage: statusOf(storage) }
      return c.json(body, database && storage ? 200 : 503)
    })
    .get('/ready', async (c) => {
      // Why this instance should get no new requests now, in the order they are checked.
      if (deps.draining()) return c.json({ ready: false, reason: 'draining' }, 503)
      const { database, storage } = await check()
      if (!database) return c.json({ ready: false, reason: 'database' }, 503)
      if (!storage) return c.json({ ready: false, reason: 'storage' }, 503)
      return c.json({ ready: true }, 200)
    })
    .get('/quota', async (c) => c.json(await deps.quota.status(deps.ipOf(c))))
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
