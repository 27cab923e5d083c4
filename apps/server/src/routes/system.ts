/**
 * Service routes that need no credential: `GET /api/config`, `GET /api/health` and
 * `GET /api/quota` (spec: Endpoints).
 */
import {
  HEALTH_STATUS_OK,
  UPLOAD_CHUNK_BYTES,
  type ConfigResponse,
  type HealthResponse,
} from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import { loginEnabled, type Config } from '../config.js'
import type { UploadQuota } from '../services/limits/quota.js'

export interface SystemRouteDeps {
  config: Config
  version: string
  now: () => Date
  quota: UploadQuota
  /** Resolves true while the server can do its work (database, storage). */
  checkHealth: () => Promise<boolean>
  ipOf: (c: Context) => string
}

/** This project's `status` of a server that cannot do its work; answered with 503. */
export const HEALTH_STATUS_UNAVAILABLE = 'unavailable'

export function systemRoutes(deps: SystemRouteDeps): Hono {
  const config = configResponse(deps.config)
  return new Hono()
    .get('/config', (c) => c.json(config))
    .get('/health', async (c) => {
      const healthy = await deps.checkHealth().catch(() => false)
      const body: HealthResponse = {
        status: healthy ? HEALTH_STATUS_OK : HEALTH_STATUS_UNAVAILABLE,
        version: deps.version,
        timestamp: deps.now().toISOString(),
      }
      return c.json(body, healthy ? 200 : 503)
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
    // Clients send 10 MB chunks unless the server accepts less per chunk.
    uploadChunkSize: Math.min(UPLOAD_CHUNK_BYTES, config.fileChunkMaxSize),
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
