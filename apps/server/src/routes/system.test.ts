import { UPLOAD_CHUNK_BYTES, type QuotaResponse } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { loadConfig, type Config } from '../config.js'
import type { UploadQuota } from '../limits/quota.js'
import { systemRoutes, type HealthChecks } from './system.js'

const BOTH_UP: HealthChecks = { database: true, storage: true }

const NOW = new Date('2024-03-10T12:00:00.000Z')

const QUOTA_STATUS: QuotaResponse = {
  enabled: true,
  limitBytes: 1000,
  usedBytes: 10,
  remainingBytes: 990,
  windowMs: 86_400_000,
  resetsAt: '2024-03-11T00:00:00.000Z',
}

function app(
  options: {
    config?: Config
    healthy?: () => Promise<HealthChecks>
    draining?: boolean
    quotaIps?: string[]
  } = {},
) {
  const quota: Pick<UploadQuota, 'status'> = {
    status: async (ip) => {
      options.quotaIps?.push(ip)
      return QUOTA_STATUS
    },
  }
  return systemRoutes({
    config: options.config ?? loadConfig({}),
    version: '1.2.3',
    now: () => NOW,
    quota,
    checkHealth: options.healthy ?? (() => Promise.resolve(BOTH_UP)),
    draining: () => options.draining ?? false,
    ipOf: (c) => c.req.header('X-Test-Ip') ?? 'none',
  })
}

describe('GET /config', () => {
  it("answers the spec's fields and every extra field from the configuration", async () => {
    const config = loadConfig({
      FILE_MAX_SIZE: '2GB',
      FILE_MAX_FILES_PER_UPLOAD: '50',
      FILE_EXPIRE_OPTIONS_SEC: '60,3600',
      FILE_EXPIRE_DEFAULT_SEC: '3600',
      FILE_DOWNLOAD_OPTIONS: '1,5',
      FILE_DOWNLOAD_DEFAULT: '5',
      CUSTOM_TITLE: 'Drop',
      CUSTOM_COLOR: '#112233',
      CUSTOM_LOGO: '/logo.svg',
      ENABLED_SERVICES: 'file,note',
      FILE_UPLOAD_SPEED_LIMIT: '1MB',
      FILE_UPLOAD_WS: 'false',
      FILE_UPLOAD_CONCURRENT_CHUNKS: '4',
      NOTE_MAX_SIZE: '64KB',
      NOTE_EXPIRE_OPTIONS_SEC: '300',
      NOTE_VIEW_OPTIONS: '1,2',
      NOTE_VIEW_DEFAULT: '2',
      FILE_REQUEST_EXPIRE_OPTIONS_SEC: '86400',
      FILE_REQUEST_UPLOAD_OPTIONS: '1,3',
      FILE_REQUEST_DOWNLOAD_OPTIONS: '2',
      FILE_REQUEST_MAX_SIZE: '1GB',
      FILE_REQUEST_DAILY_LIMIT: '0',
      FORCE_REQUEST_PASSWORD: 'true',
      SMTP_URL: 'smtp://mail.example.org:587',
      OIDC_ISSUER: 'https://id.example',
      OIDC_CLIENT_ID: 'fileshare',
      OIDC_CLIENT_SECRET: 'x',
      OIDC_SESSION_SECRET: 'x'.repeat(32),
      OIDC_PROTECT_NOTES: 'true',
      IMPRINT_URL: 'https://operator.example/imprint',
      LOCALES: 'de,en,ja',
      DEFAULT_LOCALE: 'de',
    })
    const res = await app({ config }).request('/config')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      maxFileSize: 2 * 1024 ** 3,
      maxFilesPerUpload: 50,
      expireOptions: [60, 3600],
      defaultExpire: 3600,
      downloadOptions: [1, 5],
      defaultDownload: 5,
      customTitle: 'Drop',
      customColor: '#112233',
      customLogo: '/logo.svg',
      imprintUrl: 'https://operator.example/imprint',
      privacyUrl: null,
      fileRequestsEnabled: false,
      uploadSpeedLimit: 1024 ** 2,
      webSocketUploadEnabled: false,
      uploadConcurrentChunks: 4,
      uploadChunkSize: UPLOAD_CHUNK_BYTES,
      noteMaxSize: 64 * 1024,
      noteExpireOptions: [300],
      noteDefaultExpire: 300,
      noteViewOptions: [1, 2],
      noteDefaultViews: 2,
      fileRequestExpireOptions: [86_400],
      fileRequestUploadOptions: [1, 3],
      fileRequestDownloadOptions: [2],
      fileRequestMaxSize: 1024 ** 3,
      fileRequestDailyLimit: 0,
      fileRequestPasswordRequired: true,
      notifyEmailEnabled: true,
      loginEnabled: true,
      loginRequired: { files: false, notes: true, requests: false },
      locales: ['de', 'en', 'ja'],
      defaultLocale: 'de',
    })
  })

  it('reports file requests enabled, null custom values and no login by default', async () => {
    const body = (await (await app().request('/config')).json()) as Record<string, unknown>
    expect(body).toMatchObject({
      fileRequestsEnabled: true,
      customColor: null,
      customLogo: null,
      loginEnabled: false,
      loginRequired: { files: false, notes: false, requests: false },
      locales: [],
      defaultLocale: 'en',
    })
  })

  it('never advertises chunks larger than the server accepts', async () => {
    const config = loadConfig({ FILE_CHUNK_MAX_SIZE: '4MB' })
    const body = (await (await app({ config }).request('/config')).json()) as Record<
      string,
      unknown
    >
    expect(body.uploadChunkSize).toBe(4 * 1024 ** 2)
  })
})

describe('GET /health', () => {
  it('answers 200 with status ok, the version, the time and each part ok while healthy', async () => {
    const res = await app().request('/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      status: 'ok',
      version: '1.2.3',
      timestamp: '2024-03-10T12:00:00.000Z',
      database: 'ok',
      storage: 'ok',
    })
  })

  it.each([
    ['the database is out of reach', { database: false, storage: true }, 'unavailable', 'ok'],
    ['the storage is out of reach', { database: true, storage: false }, 'ok', 'unavailable'],
  ])('answers 503 unavailable and names the part when %s', async (_name, checks, db, storage) => {
    const res = await app({ healthy: () => Promise.resolve(checks) }).request('/health')
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({
      status: 'unavailable',
      version: '1.2.3',
      timestamp: '2024-03-10T12:00:00.000Z',
      database: db,
      storage,
    })
  })

  it('answers 503 with every part unavailable when the check itself fails', async () => {
    const res = await app({ healthy: () => Promise.reject(new Error('disk gone')) }).request(
      '/health',
    )
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ database: 'unavailable', storage: 'unavailable' })
  })
})

describe('GET /ready', () => {
  it('answers 200 while both parts answer and the instance is not shutting down', async () => {
    const res = await app().request('/ready')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ready: true })
  })

  it.each([
    ['draining', { draining: true }],
    ['database', { healthy: () => Promise.resolve({ database: false, storage: true }) }],
    ['storage', { healthy: () => Promise.resolve({ database: true, storage: false }) }],
  ] as const)('answers 503 with the reason %s', async (reason, options) => {
    const res = await app(options).request('/ready')
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ ready: false, reason })
  })
})

describe('GET /quota', () => {
  it("answers the quota status of the caller's IP", async () => {
    const quotaIps: string[] = []
    const res = await app({ quotaIps }).request('/quota', {
      headers: { 'X-Test-Ip': '203.0.113.7' },
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(QUOTA_STATUS)
    expect(quotaIps).toEqual(['203.0.113.7'])
  })
})
