/**
 * `GET /api/config`: the spec's fields, plus (this project's choice) every setting a client needs
 * to obey the server without guessing. Sizes are bytes, durations seconds, counts integers.
 */

/** Which kinds of creation need a login (`OIDC_PROTECT_*`); all false while login is off. */
export interface LoginRequirements {
  files: boolean
  notes: boolean
  requests: boolean
}

/** 200 of `GET /api/config`. */
export interface ConfigResponse {
  /** `FILE_MAX_SIZE`: largest encrypted upload. */
  maxFileSize: number
  /** `FILE_MAX_FILES_PER_UPLOAD`. */
  maxFilesPerUpload: number
  /** `FILE_EXPIRE_OPTIONS_SEC`. */
  expireOptions: readonly number[]
  defaultExpire: number
  /** `FILE_DOWNLOAD_OPTIONS`. */
  downloadOptions: readonly number[]
  defaultDownload: number
  customTitle: string
  customColor: string | null
  customLogo: string | null
  /** This project's choice: `IMPRINT_URL`, the operator's imprint (legal notice); null when unset. */
  imprintUrl: string | null
  /** This project's choice: `PRIVACY_URL`, the operator's privacy statement; null when unset. */
  privacyUrl: string | null
  /** Whether `request` is in `ENABLED_SERVICES`. */
  fileRequestsEnabled: boolean

  /** This project's choice: `FILE_UPLOAD_SPEED_LIMIT` in bytes per second; 0 means none. */
  uploadSpeedLimit: number
  /**
   * This project's choice: whether a counted download may ask for a read grant (docs/api.md, Read
   * grants); false on the S3 backend, whose downloads answer a presigned URL instead.
   */
  readGrantsEnabled: boolean
  /** This project's choice: `FILE_UPLOAD_WS`; when false clients use chunked HTTP at once. */
  webSocketUploadEnabled: boolean
  /** This project's choice: `FILE_UPLOAD_CONCURRENT_CHUNKS`, chunks in flight. */
  uploadConcurrentChunks: number
  /** This project's choice: chunk size of chunked uploads, 10 MB (spec: POST /api/upload/:id/chunk). */
  uploadChunkSize: number
  /** This project's choice: `NOTE_MAX_SIZE`; the ciphertext may be 256 bytes more. */
  noteMaxSize: number
  /** This project's choice: `NOTE_EXPIRE_OPTIONS_SEC`. */
  noteExpireOptions: readonly number[]
  /** This project's choice: the preselected entry of `noteExpireOptions`. */
  noteDefaultExpire: number
  /** This project's choice: `NOTE_VIEW_OPTIONS`. */
  noteViewOptions: readonly number[]
  /** This project's choice: the preselected entry of `noteViewOptions`. */
  noteDefaultViews: number
  /** This project's choice: `FILE_REQUEST_EXPIRE_OPTIONS_SEC`. */
  fileRequestExpireOptions: readonly number[]
  /** This project's choice: `FILE_REQUEST_UPLOAD_OPTIONS` (twice any of them is accepted too). */
  fileRequestUploadOptions: readonly number[]
  /** This project's choice: `FILE_REQUEST_DOWNLOAD_OPTIONS`. */
  fileRequestDownloadOptions: readonly number[]
  /** This project's choice: `FILE_REQUEST_MAX_SIZE`, the largest `maxSize` of a request. */
  fileRequestMaxSize: number
  /** This project's choice: `FILE_REQUEST_DAILY_LIMIT`; 0 means no limit. */
  fileRequestDailyLimit: number
  /** This project's choice: `FORCE_REQUEST_PASSWORD`; requests without a password are refused. */
  fileRequestPasswordRequired: boolean
  /** This project's choice: whether `SMTP_URL` is set, so a request may ask for a mail. */
  notifyEmailEnabled: boolean
  /** This project's choice: whether the `/auth` routes are active (all three OIDC variables set). */
  loginEnabled: boolean
  /** This project's choice: which creation routes need a login. */
  loginRequired: LoginRequirements
  /** This project's choice: `LOCALES`, the languages the web app offers; empty offers all it has. */
  locales: readonly string[]
  /** This project's choice: `DEFAULT_LOCALE`, the language when no preferred one is offered. */
  defaultLocale: string
}
