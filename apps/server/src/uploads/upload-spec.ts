/**
 * What a client declares before sending an upload's bytes, the same on every transport (spec:
 * POST /api/upload, POST /api/upload/init, the WebSocket `init` frame), and its check against
 * the settings: canonical tokens and salts, the offered expiries and download limits, the size
 * limit.
 * May touch: nothing (pure).
 */
import {
  ERROR_MESSAGES,
  PASSWORD_ALGO,
  isOneOf,
  parseIntegerStrict,
  RECEIVED_HEADERS,
} from '@fileshare/protocol'

import type { Config } from '../config.js'
import { HttpError } from '../http-error.js'
import { hashToken, tokenBytes } from '../access/tokens.js'
import { canonicalSalt, invalid } from '../validation.js'

/** What a client declares before sending bytes: the same on every transport. */
export interface UploadSpec {
  size: number
  salt: string
  maxDownloads: number
  expireSec: number
  fileCount: number
  hasPassword: boolean
  passwordSalt: string | null
  passwordAlgo: string | null
  authTokenHash: Buffer
  ownerTokenHash: Buffer
}

/** Header names as they arrive (lower case); `size` names the header that carries the size. */
export type UploadHeaderValues = Record<string, string | undefined>

/** The settings a declaration is checked against. */
export type UploadSpecLimits = Pick<
  Config,
  'fileDownloadOptions' | 'fileExpireOptionsSec' | 'fileMaxFilesPerUpload' | 'fileMaxSize'
>

/**
 * Validates the headers of `POST /api/upload`, `POST /api/upload/init` and the WebSocket `init`
 * frame (spec: POST /api/upload). `sizeHeader` is `content-length` or `x-content-length`.
 */
export function parseUploadSpec(
  config: UploadSpecLimits,
  headers: UploadHeaderValues,
  sizeHeader: string,
): UploadSpec {
  const problems: Record<string, string> = {}
  const integer = (name: string, fallback?: number): number => {
    const value = headers[name]
    if (value === undefined && fallback !== undefined) return fallback
    try {
      return parseIntegerStrict(value, {}, name)
    } catch {
      problems[name] = 'must be a whole number'
      return NaN
    }
  }

  const auth = tokenBytes(headers[RECEIVED_HEADERS.authToken])
  if (!auth) problems[RECEIVED_HEADERS.authToken] = 'must be a base64url token'
  const owner = tokenBytes(headers[RECEIVED_HEADERS.ownerToken])
  if (!owner) problems[RECEIVED_HEADERS.ownerToken] = 'must be a base64url token'
  const salt = canonicalSalt(headers[RECEIVED_HEADERS.salt], [16, 32])
  if (salt === null) problems[RECEIVED_HEADERS.salt] = 'must be base64url of 16 or 32 bytes'

  const maxDownloads = integer(RECEIVED_HEADERS.maxDownloads)
  if (!Number.isNaN(maxDownloads) && !isOneOf(maxDownloads, config.fileDownloadOptions)) {
    problems[RECEIVED_HEADERS.maxDownloads] =
      `must be one of ${config.fileDownloadOptions.join(', ')}`
  }
  const expireSec = integer(RECEIVED_HEADERS.expireSec)
  if (!Number.isNaN(expireSec) && !isOneOf(expireSec, config.fileExpireOptionsSec)) {
    problems[RECEIVED_HEADERS.expireSec] =
      `must be one of ${config.fileExpireOptionsSec.join(', ')}`
  }
  const fileCount = integer(RECEIVED_HEADERS.fileCount, 1)
  if (!Number.isNaN(fileCount) && (fileCount < 1 || fileCount > config.fileMaxFilesPerUpload)) {
    problems[RECEIVED_HEADERS.fileCount] = `must be from 1 to ${config.fileMaxFilesPerUpload}`
  }

  const hasPasswordText = headers[RECEIVED_HEADERS.hasPassword]
  const hasPassword = hasPasswordText === 'true'
  if (hasPasswordText !== 'true' && hasPasswordText !== 'false') {
    problems[RECEIVED_HEADERS.hasPassword] = 'must be true or false'
  }
  const passwordSalt = canonicalSalt(headers[RECEIVED_HEADERS.passwordSalt], [16])
  const passwordAlgo = headers[RECEIVED_HEADERS.passwordAlgo] ?? null
  if (hasPassword) {
    if (passwordSalt === null) {
      problems[RECEIVED_HEADERS.passwordSalt] = 'must be base64url of 16 bytes'
    }
    if (passwordAlgo !== PASSWORD_ALGO)
      problems[RECEIVED_HEADERS.passwordAlgo] = `must be ${PASSWORD_ALGO}`
  }

  // A size too large to be a safe integer is still a size, and still too large.
  const declared = headers[sizeHeader]
  const size =
    declared !== undefined &&
    /^[0-9]{16,}$/.test(declared) &&
    !Number.isSafeInteger(Number(declared))
      ? Number.MAX_SAFE_INTEGER
      : integer(sizeHeader)
  if (Number.isNaN(size)) problems[sizeHeader] = 'must be the exact encrypted size in bytes'
  if (Object.keys(problems).length > 0) throw invalid(problems)
  if (size > config.fileMaxSize) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
  if (size < 1) throw invalid({ [sizeHeader]: 'must be at least 1' })

  return {
    size,
    salt: salt!,
    maxDownloads,
    expireSec,
    fileCount,
    hasPassword,
    passwordSalt: hasPassword ? passwordSalt : null,
    passwordAlgo: hasPassword ? passwordAlgo : null,
    authTokenHash: hashToken(auth!),
    ownerTokenHash: hashToken(owner!),
  }
}
