import { resolve } from 'node:path'

import { describe, expect, it } from 'vitest'

import { ConfigError, loadConfig, loginEnabled, type Config } from './config.js'
import { parseNotifyEmail } from './notify/email.js'

const DAY = 86_400
const GiB = 1024 ** 3

const DEFAULTS: Config = {
  port: 3000,
  host: '0.0.0.0',
  baseUrl: 'http://localhost:3000',
  dataDir: resolve('./data'),
  databaseUrl: null,
  databasePoolSize: 10,
  sqliteDriver: 'auto',
  trustedProxies: 0,
  webcatDir: null,
  logLevel: 'info',
  rateLimitWindowMs: 60_000,
  rateLimitMax: 600,
  reportRateLimitMax: 3,
  reportDailyLimit: 10,
  uploadQuotaBytes: 0,
  uploadQuotaWindowSec: DAY,
  cleanupIntervalSec: 60,
  uploadSessionIdleSec: 3600,
  shutdownGraceMs: 30_000,
  customTitle: 'fileshare',
  customColor: null,
  customLogo: null,
  imprintUrl: null,
  privacyUrl: null,
  locales: [],
  defaultLocale: 'en',
  fileMaxSize: 10 * GiB,
  fileMaxFilesPerUpload: 1000,
  fileExpireOptionsSec: [300, 3600, DAY, 7 * DAY],
  fileExpireDefaultSec: DAY,
  fileDownloadOptions: [1, 2, 3, 5, 10, 20, 50, 100],
  fileDownloadDefault: 1,
  downloadGrantTtlSec: 6 * 3600,
  fileChunkMaxSize: 16 * 1024 ** 2,
  noteMaxSize: 1024 ** 2,
  noteExpireOptionsSec: [300, 3600, DAY, 7 * DAY],
  noteExpireDefaultSec: DAY,
  noteViewOptions: [1, 2, 3, 5, 10, 100],
  noteViewDefault: 1,
  fileUploadWs: true,
  fileUploadWsMaxBuffer: 32 * 1024 ** 2,
  fileUploadWsBufferBudget: 128 * 1024 ** 2,
  fileUploadWsMaxPerIp: 16,
  fileUploadWsProgressWindowSec: 600,
  fileUploadSpeedLimit: 0,
  fileUploadConcurrentChunks: 3,
  fileUploadChunkBuffer: 256 * 1024 ** 2,
  storageBackend: 'filesystem',
  s3: null,
  enabledServices: ['file', 'note', 'request'],
  oidcIssuer: null,
  oidcClientId: null,
  oidcClientSecret: null,
  oidcProvider: 'generic',
  oidcSessionSecret: null,
  oidcSessionDurationSec: DAY,
  oidcProtectFiles: false,
  oidcProtectNotes: false,
  oidcProtectRequests: false,
  passwordMaxAttempts: 5,
  passwordLockoutMs: 15 * 60_000,
  fileRequestExpireOptionsSec: [DAY, 7 * DAY, 30 * DAY],
  fileRequestUploadOptions: [1, 5, 10, 25, 50],
  fileRequestDownloadOptions: [1, 3, 5, 10],
  fileRequestMaxSize: 2 * GiB,
  fileRequestDailyLimit: 10,
  fileRequestRetentionSec: 7 * DAY,
  forceRequestPassword: false,
  metrics: null,
  notify: {
    smtpUrl: null,
    from: 'fileshare@localhost',
    allowPrivate: false,
    webhookHttpHosts: [],
    abuseEmail: null,
    abuseDigestIntervalSec: 900,
    emailDailyLimit: 5,
    emailMaxPerRequest: 10,
    deliveryTimeoutMs: 10_000,
  },
}

const SESSION_SECRET = 'x'.repeat(32)

const OIDC = {
  OIDC_ISSUER: 'https://id.example',
  OIDC_CLIENT_ID: 'id',
  OIDC_CLIENT_SECRET: 's',
  OIDC_SESSION_SECRET: SESSION_SECRET,
}

const S3 = {
  STORAGE_BACKEND: 's3',
  S3_ENDPOINT: 'http://127.0.0.1:7480',
  S3_BUCKET: 'fileshare',
  S3_ACCESS_KEY_ID: 'key',
  S3_SECRET_ACCESS_KEY: 'secret',
}

describe('loadConfig', () => {
  it('has a default for every setting', () => {
    expect(loadConfig({})).toEqual(DEFAULTS)
  })

  it('treats empty and blank variables as unset', () => {
    expect(loadConfig({ PORT: '', FILE_MAX_SIZE: '  ', CUSTOM_LOGO: '' })).toEqual(DEFAULTS)
  })

  it('reads PORT and HOST, and derives BASE_URL from the port', () => {
    expect(loadConfig({ PORT: '8080', HOST: '127.0.0.1' })).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:8080',
    })
  })

  it('selects PostgreSQL with DATABASE_URL and never prints its password', () => {
    const url = 'postgres://fileshare:s3cret@db.internal:5432/fileshare'
    expect(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '4' })).toMatchObject({
      databaseUrl: url,
      databasePoolSize: 4,
    })
    expect(
      loadConfig({ DATABASE_URL: 'postgresql:///fileshare?host=/run/postgresql' }),
    ).toMatchObject({
      databaseUrl: 'postgresql:///fileshare?host=/run/postgresql',
    })
    for (const bad of ['mysql://root:s3cret@db/fileshare', 'postgres://', 's3cret']) {
      expect(() => loadConfig({ DATABASE_URL: bad })).toThrow(
        new ConfigError(
          'DATABASE_URL',
          '(hidden)',
          'a postgres://user:password@host:port/database address',
        ),
      )
    }
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(ConfigError)
  })

  it('reads DOWNLOAD_GRANT_TTL_SEC between a minute and a week', () => {
    expect(loadConfig({ DOWNLOAD_GRANT_TTL_SEC: '600' }).downloadGrantTtlSec).toBe(600)
    expect(() => loadConfig({ DOWNLOAD_GRANT_TTL_SEC: '59' })).toThrow(ConfigError)
    expect(() => loadConfig({ DOWNLOAD_GRANT_TTL_SEC: String(8 * 86400) })).toThrow(ConfigError)
  })

  it('drops trailing slashes from BASE_URL', () => {
    expect(loadConfig({ BASE_URL: 'https://share.example/files/' }).baseUrl).toBe(
      'https://share.example/files',
    )
  })

  it.each([
    ['1048576', 1_048_576],
    ['512KB', 512 * 1024],
    ['512kb', 512 * 1024],
    ['100MB', 100 * 1024 ** 2],
    ['2GB', 2 * GiB],
    ['2 GiB', 2 * GiB],
    ['1.5MB', 1.5 * 1024 ** 2],
    ['1TB', 1024 ** 4],
    ['4096B', 4096],
    ['3 mib', 3 * 1024 ** 2],
  ])('reads the size %j as %i bytes', (value, bytes) => {
    expect(loadConfig({ FILE_MAX_SIZE: value }).fileMaxSize).toBe(bytes)
  })

  it('reads IMPRINT_URL and PRIVACY_URL as links for the About page', () => {
    const config = loadConfig({
      IMPRINT_URL: 'https://operator.example/imprint',
      PRIVACY_URL: 'http://operator.example/privacy#web',
    })
    expect(config.imprintUrl).toBe('https://operator.example/imprint')
    expect(config.privacyUrl).toBe('http://operator.example/privacy#web')
  })

  it('reads lists as distinct integers in ascending order', () => {
    const config = loadConfig({
      FILE_EXPIRE_OPTIONS_SEC: '3600, 60,600',
      FILE_EXPIRE_DEFAULT_SEC: '600',
      ENABLED_SERVICES: 'note, file,note',
    })
    expect(config.fileExpireOptionsSec).toEqual([60, 600, 3600])
    expect(config.fileExpireDefaultSec).toBe(600)
    expect(config.enabledServices).toEqual(['note', 'file'])
  })

  it('defaults to the first option when the preferred default is not listed', () => {
    expect(loadConfig({ FILE_DOWNLOAD_OPTIONS: '3,7' }).fileDownloadDefault).toBe(3)
    expect(loadConfig({ FILE_EXPIRE_OPTIONS_SEC: '60,120' }).fileExpireDefaultSec).toBe(60)
  })

  it.each([
    ['true', 1],
    ['TRUE', 1],
    ['1', 1],
    ['yes', 1],
    ['on', 1],
    ['false', 0],
    ['0', 0],
    ['No', 0],
    ['off', 0],
    ['2', 2],
    ['16', 16],
  ])('reads TRUST_PROXY %j as %i trusted proxies', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustedProxies).toBe(expected)
  })

  it('reads LOCALES and DEFAULT_LOCALE as canonical language tags', () => {
    expect(loadConfig({ LOCALES: 'en, de,pt-br,ZH-cn', DEFAULT_LOCALE: 'PT-BR' })).toMatchObject({
      locales: ['en', 'de', 'pt-BR', 'zh-CN'],
      defaultLocale: 'pt-BR',
    })
    expect(loadConfig({ DEFAULT_LOCALE: 'ja' })).toMatchObject({ locales: [], defaultLocale: 'ja' })
  })

  it('defaults DEFAULT_LOCALE to the first of LOCALES when English is not offered', () => {
    expect(loadConfig({ LOCALES: 'fr,de' }).defaultLocale).toBe('fr')
    expect(loadConfig({ LOCALES: 'fr,en' }).defaultLocale).toBe('en')
  })

  it.each([
    ['LOCALES', { LOCALES: 'de,german' }, 'a comma-separated list of distinct language tags'],
    ['LOCALES', { LOCALES: 'de,DE' }, 'a comma-separated list of distinct language tags'],
    ['LOCALES', { LOCALES: 'de-u-co-phonebk' }, 'a comma-separated list of distinct language tags'],
    ['LOCALES', { LOCALES: 'de,,fr' }, 'a comma-separated list of distinct language tags'],
    ['DEFAULT_LOCALE', { DEFAULT_LOCALE: 'de_DE' }, 'language tags such as en, de or pt-BR'],
    ['DEFAULT_LOCALE', { LOCALES: 'de,fr', DEFAULT_LOCALE: 'en' }, 'one of LOCALES (de, fr)'],
  ])('refuses a bad %s (%j)', (variable, env, accepts) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(
      new RegExp(`^${variable} must be ${accepts.replace(/[()]/g, '\\$&')}`),
    )
  })

  it.each([
    '/logo.svg',
    'data:image/svg+xml;base64,PHN2Zy8+',
    'https://share.example.org/brand/logo.png',
  ])('takes CUSTOM_LOGO %j, which the pages may load', (value) => {
    const config = loadConfig({ CUSTOM_LOGO: value, BASE_URL: 'https://share.example.org' })
    expect(config.customLogo).toBe(value)
  })

  it.each(['17', '-1', '1.5', 'maybe', '100'])('refuses TRUST_PROXY %j', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError)
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      'true, false, or the number of proxies in front of the service (0 to 16)',
    )
  })

  it('reads optional strings, colors and choices', () => {
    expect(
      loadConfig({
        CUSTOM_COLOR: '#3B82F6',
        CUSTOM_LOGO: '/logo.svg',
        LOG_LEVEL: 'debug',
        OIDC_PROVIDER: 'keycloak',
      }),
    ).toMatchObject({
      customColor: '#3B82F6',
      customLogo: '/logo.svg',
      logLevel: 'debug',
      oidcProvider: 'keycloak',
    })
  })

  it('reads the S3 settings only with STORAGE_BACKEND=s3, with their defaults', () => {
    expect(loadConfig({ ...S3, STORAGE_BACKEND: 'filesystem' }).s3).toBeNull()
    expect(loadConfig(S3)).toMatchObject({
      storageBackend: 's3',
      s3: {
        endpoint: 'http://127.0.0.1:7480',
        region: 'us-east-1',
        bucket: 'fileshare',
        accessKeyId: 'key',
        secretAccessKey: 'secret',
        forcePathStyle: false,
        presignedUrlExpirySec: 300,
        partSize: 8 * 1024 ** 2,
      },
    })
    expect(
      loadConfig({
        ...S3,
        S3_REGION: 'eu-west-1',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PRESIGNED_URL_EXPIRY: '60',
        S3_PART_SIZE: '16MB',
      }).s3,
    ).toMatchObject({
      region: 'eu-west-1',
      forcePathStyle: true,
      presignedUrlExpirySec: 60,
      partSize: 16 * 1024 ** 2,
    })
  })

  it.each(['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'])(
    'refuses STORAGE_BACKEND=s3 without %s in one line',
    (variable) => {
      expect(() => loadConfig({ ...S3, [variable]: '' })).toThrow(
        `${variable} must be set when STORAGE_BACKEND is s3, got ""`,
      )
    },
  )

  it.each([
    ['S3_ENDPOINT', 'minio:9000', 'an http or https URL without query or fragment'],
    [
      'S3_PART_SIZE',
      '4MB',
      'a size of at least 5242880 bytes, such as 1048576, 512KB, 100MB or 2GB',
    ],
    ['S3_PRESIGNED_URL_EXPIRY', '0', 'an integer from 1 to 604800'],
    ['S3_FORCE_PATH_STYLE', 'sometimes', 'true or false'],
  ])('refuses %s=%j with STORAGE_BACKEND=s3', (variable, value, accepts) => {
    expect(() => loadConfig({ ...S3, [variable]: value })).toThrow(
      `${variable} must be ${accepts}, got ${JSON.stringify(value)}`,
    )
  })

  it('turns login on only when all three OIDC variables are set', () => {
    expect(loginEnabled(loadConfig(OIDC))).toBe(true)
    expect(loginEnabled(loadConfig({ ...OIDC, OIDC_CLIENT_SECRET: '' }))).toBe(false)
    expect(loadConfig({ ...OIDC, OIDC_PROTECT_FILES: 'true' }).oidcProtectFiles).toBe(true)
  })

  it.each([
    ['PORT', 'abc', 'an integer from 0 to 65535'],
    ['PORT', '-1', 'an integer from 0 to 65535'],
    ['PORT', '65536', 'an integer from 0 to 65535'],
    ['PORT', '80.5', 'an integer from 0 to 65535'],
    ['RATE_LIMIT_WINDOW', '999', `an integer from 1000 to ${Number.MAX_SAFE_INTEGER}`],
    ['FILE_MAX_SIZE', 'lots', 'a size of at least 1 bytes, such as 1048576, 512KB, 100MB or 2GB'],
    ['FILE_MAX_SIZE', '10XB', 'a size of at least 1 bytes, such as 1048576, 512KB, 100MB or 2GB'],
    [
      'FILE_UPLOAD_WS_MAX_BUFFER',
      '2MB',
      'a size of at least 2097184 bytes, such as 1048576, 512KB, 100MB or 2GB',
    ],
    [
      'NOTE_MAX_SIZE',
      '65MB',
      'a size from 1 to 67108864 bytes (64 MiB), such as 1048576, 512KB, 100MB or 2GB',
    ],
    [
      'CUSTOM_LOGO',
      'https://logo.example.com/l.png',
      'a path on this server (/logo.svg), a data:image/ address or an address under BASE_URL',
    ],
    [
      'CUSTOM_LOGO',
      '//logo.example.com/l.png',
      'a path on this server (/logo.svg), a data:image/ address or an address under BASE_URL',
    ],
    ['FILE_UPLOAD_WS', 'maybe', 'true or false'],
    [
      'FILE_UPLOAD_WS_BUFFER_BUDGET',
      '16MB',
      'a size of at least 33554432 bytes, such as 1048576, 512KB, 100MB or 2GB',
    ],
    ['FILE_EXPIRE_OPTIONS_SEC', '60,x', 'a comma-separated list of distinct positive integers'],
    ['FILE_EXPIRE_OPTIONS_SEC', '60,60', 'a comma-separated list of distinct positive integers'],
    ['FILE_DOWNLOAD_OPTIONS', '0,1', 'a comma-separated list of distinct positive integers'],
    ['FILE_EXPIRE_DEFAULT_SEC', '42', 'one of 300, 3600, 86400, 604800'],
    ['STORAGE_BACKEND', 'ftp', 'one of filesystem, s3'],
    ['ENABLED_SERVICES', 'file,chat', 'a comma-separated list of file, note, request'],
    ['BASE_URL', 'not a url', 'an http or https URL'],
    ['BASE_URL', 'ftp://share.example', 'an http or https URL without query or fragment'],
    ['HOST', 'local host', 'a host name or an IPv4 or IPv6 address'],
    ['CUSTOM_COLOR', 'red', 'a hex color such as #3b82f6'],
    ['IMPRINT_URL', 'javascript:alert(1)', 'an http or https URL'],
    ['PRIVACY_URL', 'privacy.html', 'an http or https URL'],
  ])('refuses %s=%j in one line naming the variable', (variable, value, accepts) => {
    const load = () => loadConfig({ [variable]: value })
    expect(load).toThrow(ConfigError)
    expect(load).toThrow(`${variable} must be ${accepts}, got ${JSON.stringify(value)}`)
  })

  it('makes room in FILE_UPLOAD_WS_BUFFER_BUDGET for one frame of FILE_UPLOAD_WS_MAX_BUFFER', () => {
    expect(loadConfig({ FILE_UPLOAD_WS_MAX_BUFFER: '256MB' }).fileUploadWsBufferBudget).toBe(
      256 * 1024 ** 2,
    )
    expect(
      loadConfig({ FILE_UPLOAD_WS_MAX_BUFFER: '64MB', FILE_UPLOAD_WS_BUFFER_BUDGET: '64MB' })
        .fileUploadWsBufferBudget,
    ).toBe(64 * 1024 ** 2)
  })

  it('refuses a protected creation without a way to log in', () => {
    expect(() => loadConfig({ OIDC_PROTECT_NOTES: 'true' })).toThrow(
      'OIDC_PROTECT_NOTES must be false unless OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set, got "true"',
    )
  })

  it('writes a message of exactly one line', () => {
    expect(() => loadConfig({ PORT: 'a\nb' })).toThrow(
      'PORT must be an integer from 0 to 65535, got "a\\nb"',
    )
  })
})

describe('loadConfig login settings', () => {
  it('keeps OIDC_ISSUER exactly as written, since ID tokens must name it so', () => {
    expect(loadConfig({ ...OIDC, OIDC_ISSUER: 'https://id.example/app/o/fs/' }).oidcIssuer).toBe(
      'https://id.example/app/o/fs/',
    )
  })

  it.each(['not a url', 'ftp://id.example', 'https://id.example/?x=1'])(
    'refuses OIDC_ISSUER=%j in one line',
    (value) => {
      expect(() => loadConfig({ ...OIDC, OIDC_ISSUER: value })).toThrow(
        `OIDC_ISSUER must be an http or https URL without query or fragment, got ${JSON.stringify(value)}`,
      )
    },
  )

  it('refuses login without OIDC_SESSION_SECRET', () => {
    expect(() => loadConfig({ ...OIDC, OIDC_SESSION_SECRET: '' })).toThrow(
      'OIDC_SESSION_SECRET must be at least 32 characters when OIDC login is enabled, got ""',
    )
  })

  it('refuses a short OIDC_SESSION_SECRET without printing it', () => {
    const load = () => loadConfig({ ...OIDC, OIDC_SESSION_SECRET: 'hunter2-hunter2' })
    expect(load).toThrow(
      'OIDC_SESSION_SECRET must be at least 32 characters when OIDC login is enabled, got "<15 characters>"',
    )
    expect(load).not.toThrow(/hunter2/)
  })

  it('refuses an OIDC_SESSION_DURATION longer than a cookie may live', () => {
    expect(() => loadConfig({ ...OIDC, OIDC_SESSION_DURATION: '34560001' })).toThrow(
      'OIDC_SESSION_DURATION must be an integer from 60 to 34560000, got "34560001"',
    )
  })

  it('needs no session secret while login is off', () => {
    expect(loadConfig({ OIDC_ISSUER: 'https://id.example' }).oidcSessionSecret).toBeNull()
  })
})

describe('metrics settings', () => {
  const TOKEN = 'a-metrics-token-of-at-least-32-characters'

  it('are off by default, whatever else is set', () => {
    expect(loadConfig({}).metrics).toBeNull()
    expect(loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9100' }).metrics).toBeNull()
  })

  it('take a token, a separate port, or both', () => {
    const on = { METRICS_ENABLED: 'true' }
    expect(loadConfig({ ...on, METRICS_TOKEN: TOKEN }).metrics).toEqual({
      token: TOKEN,
      port: null,
    })
    expect(loadConfig({ ...on, METRICS_PORT: '9100' }).metrics).toEqual({ token: null, port: 9100 })
    expect(loadConfig({ ...on, METRICS_TOKEN: TOKEN, METRICS_PORT: '9100' }).metrics).toEqual({
      token: TOKEN,
      port: 9100,
    })
  })

  it('refuses /metrics open to anyone on the main port', () => {
    expect(() => loadConfig({ METRICS_ENABLED: 'true' })).toThrow(
      'METRICS_ENABLED must be false unless METRICS_TOKEN or METRICS_PORT is set (/metrics is never open on the main port), got "true"',
    )
  })

  it('refuses a short METRICS_TOKEN without printing it', () => {
    const load = () => loadConfig({ METRICS_ENABLED: 'true', METRICS_TOKEN: 'hunter2-hunter2' })
    expect(load).toThrow(
      'METRICS_TOKEN must be at least 32 characters without spaces, got "<15 characters>"',
    )
    expect(load).not.toThrow(/hunter2/)
  })

  it.each([
    ['0', 'METRICS_PORT must be an integer from 1 to 65535, got "0"'],
    ['70000', 'METRICS_PORT must be an integer from 1 to 65535, got "70000"'],
    ['3000', 'METRICS_PORT must be another port than PORT (3000), got "3000"'],
  ])('refuses METRICS_PORT=%s in one line', (value, message) => {
    expect(() => loadConfig({ METRICS_ENABLED: 'true', METRICS_PORT: value })).toThrow(message)
  })

  it('reads the notification settings and keeps the SMTP address out of its errors', () => {
    const smtp = 'smtp://user:s3cret@mail.example.org:587'
    expect(
      loadConfig({ SMTP_URL: smtp, ABUSE_EMAIL: 'abuse@example.org', NOTIFY_ALLOW_PRIVATE: 'true' })
        .notify,
    ).toMatchObject({ smtpUrl: smtp, abuseEmail: 'abuse@example.org', allowPrivate: true })
    expect(() => loadConfig({ ABUSE_EMAIL: 'abuse@example.org' })).toThrow(
      'ABUSE_EMAIL must be unset unless SMTP_URL is set, got "abuse@example.org"',
    )
    const bad = () => loadConfig({ SMTP_URL: 'http://user:s3cret@mail.example.org' })
    expect(bad).toThrow('SMTP_URL must be an smtp:// or smtps:// address')
    expect(bad).not.toThrow(/s3cret/)
  })

  it('bounds NOTIFY_DELIVERY_TIMEOUT_MS within the outbox claim on a row', () => {
    expect(loadConfig({ NOTIFY_DELIVERY_TIMEOUT_MS: '2500' }).notify.deliveryTimeoutMs).toBe(2500)
    expect(() => loadConfig({ NOTIFY_DELIVERY_TIMEOUT_MS: '60001' })).toThrow(
      'NOTIFY_DELIVERY_TIMEOUT_MS must be an integer from 100 to 60000, got "60001"',
    )
  })

  // Security: ABUSE_EMAIL passes the same address check as a request's notifyEmail, so no value
  // the mailer could read as several recipients or a broken address starts the server.
  it('checks ABUSE_EMAIL with the address check of request notifications', () => {
    const accepted = ['abuse@example.org', 'abuse+reports@mail.example.org']
    const refused = [
      'abuse@example..org',
      'abuse@example.org,evil',
      'abuse,evil@example.org',
      'Abuse <abuse@example.org>',
      'abuse@example.org\r\nBcc: evil@example.org',
      `${'a'.repeat(64)}@${'b'.repeat(190)}.org`,
    ]
    const withAbuse = (value: string) =>
      loadConfig({ SMTP_URL: 'smtp://mail.example.org', ABUSE_EMAIL: value })
    for (const value of accepted) {
      expect(parseNotifyEmail(value)).toBe(value)
      expect(withAbuse(value).notify.abuseEmail).toBe(value)
    }
    for (const value of refused) {
      expect(() => parseNotifyEmail(value), value).toThrow()
      expect(() => withAbuse(value), value).toThrow(
        new ConfigError('ABUSE_EMAIL', value, 'an email address'),
      )
    }
  })

  it('refuses a METRICS_ENABLED that is not a boolean', () => {
    expect(() => loadConfig({ METRICS_ENABLED: 'sure' })).toThrow(
      'METRICS_ENABLED must be true or false, got "sure"',
    )
  })
})
