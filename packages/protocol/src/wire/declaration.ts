/**
 * An upload's declaration (spec: POST /api/upload, POST /api/upload/init, WebSocket
 * /api/upload/ws): what a client states before its bytes, as one typed value with its two
 * spellings, the `X-` headers and the `headers` of an `init` frame. Clients encode it with
 * `toHeaders` / `toFrame`; the server decodes either spelling with `fromHeaders` / `fromFrame`,
 * which answer the typed declaration or the spec's refusal. Pure; touches nothing.
 */
import { fromBase64Url, toBase64Url } from '../encoding.js'
import { canonicalBase64Url, isOneOf, parseIntegerStrict } from '../validate.js'
import { PASSWORD_ALGO, type Base64Url, type PasswordAlgo } from './common.js'
import { ERROR_MESSAGES } from './errors.js'
import { HEADERS, RECEIVED_HEADERS, type HeaderName } from './headers.js'
import { FILE_TOKEN_BYTES, PASSWORD_SALT_BYTES, UPLOAD_SALT_BYTES } from './limits.js'
import type { UploadWsInitHeaders } from './ws-frames.js'

/** What a client declares before an upload's bytes; base64url values in their canonical form. */
export interface Declaration {
  authToken: Base64Url
  ownerToken: Base64Url
  salt: Base64Url
  maxDownloads: number
  expireSec: number
  fileCount: number
  /** Exact size of the whole encrypted payload. */
  size: number
  /** The password's salt and algorithm, or null for an upload without a password. */
  password: { salt: Base64Url; algo: PasswordAlgo } | null
}

/** The server's settings a declaration is checked against (published by `/api/config`). */
export interface DeclarationLimits {
  downloadOptions: readonly number[]
  expireOptionsSec: readonly number[]
  maxFilesPerUpload: number
  maxSize: number
}

/** A refused declaration: the spec's status and message, and what is wrong with each header. */
export interface DeclarationRefusal {
  status: 400 | 413
  message: string
  details?: Record<string, string>
}

/** A decoded declaration, or why it is refused. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; refusal: DeclarationRefusal }

/** Header names as a Node server receives them (lower case), with their values. */
export type ReceivedHeaderValues = Record<string, string | undefined>

/** The header that carries the size: `content-length` on a single request, else `x-content-length`. */
export type DeclaredSizeHeader =
  typeof RECEIVED_HEADERS.contentLength | typeof RECEIVED_HEADERS.declaredContentLength

type FrameField = keyof UploadWsInitHeaders | 'passwordSalt' | 'passwordAlgo'

/** Each field of the `init` frame and the header that carries it over HTTP. */
export const DECLARATION_HEADERS = {
  authToken: HEADERS.authToken,
  ownerToken: HEADERS.ownerToken,
  salt: HEADERS.salt,
  maxDownloads: HEADERS.maxDownloads,
  expireSec: HEADERS.expireSec,
  fileCount: HEADERS.fileCount,
  contentLength: HEADERS.declaredContentLength,
  hasPassword: HEADERS.hasPassword,
  passwordSalt: HEADERS.passwordSalt,
  passwordAlgo: HEADERS.passwordAlgo,
} as const satisfies Record<FrameField, HeaderName>

/** The invalid-request refusal naming each wrong header. */
export function invalidDeclaration(details: Record<string, string>): DeclarationRefusal {
  return { status: 400, message: ERROR_MESSAGES.invalidRequest, details }
}

function canonicalToken(value: unknown): string | null {
  if (typeof value !== 'string') return null
  try {
    return toBase64Url(fromBase64Url(value, { bytes: [...FILE_TOKEN_BYTES] }))
  } catch {
    return null
  }
}

/**
 * Checks a declaration, reading each value under its received header name. Every problem is
 * reported at once under its header; a size over the limit is 413 only once all else is valid.
 */
function decode(
  read: (header: string) => unknown,
  limits: DeclarationLimits,
  sizeHeader: DeclaredSizeHeader,
): Decoded<Declaration> {
  const problems: Record<string, string> = {}
  const integer = (name: string, fallback?: number): number => {
    const value = read(name)
    if (value === undefined && fallback !== undefined) return fallback
    try {
      return parseIntegerStrict(value, {}, name)
    } catch {
      problems[name] = 'must be a whole number'
      return NaN
    }
  }
  const oneOf = (name: string, options: readonly number[]): number => {
    const value = integer(name)
    if (!Number.isNaN(value) && !isOneOf(value, options)) {
      problems[name] = `must be one of ${options.join(', ')}`
    }
    return value
  }

  const authToken = canonicalToken(read(RECEIVED_HEADERS.authToken))
  if (!authToken) problems[RECEIVED_HEADERS.authToken] = 'must be a base64url token'
  const ownerToken = canonicalToken(read(RECEIVED_HEADERS.ownerToken))
  if (!ownerToken) problems[RECEIVED_HEADERS.ownerToken] = 'must be a base64url token'
  const salt = canonicalBase64Url(read(RECEIVED_HEADERS.salt), UPLOAD_SALT_BYTES)
  if (salt === null) problems[RECEIVED_HEADERS.salt] = 'must be base64url of 16 or 32 bytes'

  const maxDownloads = oneOf(RECEIVED_HEADERS.maxDownloads, limits.downloadOptions)
  const expireSec = oneOf(RECEIVED_HEADERS.expireSec, limits.expireOptionsSec)
  const fileCount = integer(RECEIVED_HEADERS.fileCount, 1)
  if (!Number.isNaN(fileCount) && (fileCount < 1 || fileCount > limits.maxFilesPerUpload)) {
    problems[RECEIVED_HEADERS.fileCount] = `must be from 1 to ${limits.maxFilesPerUpload}`
  }

  const hasPasswordText = read(RECEIVED_HEADERS.hasPassword)
  const hasPassword = hasPasswordText === 'true'
  if (hasPasswordText !== 'true' && hasPasswordText !== 'false') {
    problems[RECEIVED_HEADERS.hasPassword] = 'must be true or false'
  }
  const passwordSalt = canonicalBase64Url(read(RECEIVED_HEADERS.passwordSalt), [
    PASSWORD_SALT_BYTES,
  ])
  if (hasPassword) {
    if (passwordSalt === null) {
      problems[RECEIVED_HEADERS.passwordSalt] = 'must be base64url of 16 bytes'
    }
    if (read(RECEIVED_HEADERS.passwordAlgo) !== PASSWORD_ALGO) {
      problems[RECEIVED_HEADERS.passwordAlgo] = `must be ${PASSWORD_ALGO}`
    }
  }

  // A size too large to be a safe integer is still a size, and still too large.
  const declared = read(sizeHeader)
  const size =
    typeof declared === 'string' &&
    /^[0-9]{16,}$/.test(declared) &&
    !Number.isSafeInteger(Number(declared))
      ? Number.MAX_SAFE_INTEGER
      : integer(sizeHeader)
  if (Number.isNaN(size)) problems[sizeHeader] = 'must be the exact encrypted size in bytes'
  if (Object.keys(problems).length > 0) return { ok: false, refusal: invalidDeclaration(problems) }
  if (size > limits.maxSize) {
    return { ok: false, refusal: { status: 413, message: ERROR_MESSAGES.fileTooLarge } }
  }
  if (size < 1) {
    return { ok: false, refusal: invalidDeclaration({ [sizeHeader]: 'must be at least 1' }) }
  }
  return {
    ok: true,
    value: {
      authToken: authToken!,
      ownerToken: ownerToken!,
      salt: salt!,
      maxDownloads,
      expireSec,
      fileCount,
      size,
      password: hasPassword ? { salt: passwordSalt!, algo: PASSWORD_ALGO } : null,
    },
  }
}

/** The frame field each received header name stands for. */
const FRAME_FIELDS = new Map<string, FrameField>(
  Object.entries(DECLARATION_HEADERS).map(([field, header]) => [
    header.toLowerCase(),
    field as FrameField,
  ]),
)

export const Declaration = {
  /** The `headers` of an `init` frame: every value a string, the password's only with one. */
  toFrame(declaration: Declaration): UploadWsInitHeaders {
    const { password } = declaration
    return {
      authToken: declaration.authToken,
      ownerToken: declaration.ownerToken,
      salt: declaration.salt,
      maxDownloads: String(declaration.maxDownloads),
      expireSec: String(declaration.expireSec),
      fileCount: String(declaration.fileCount),
      contentLength: String(declaration.size),
      ...(password
        ? { hasPassword: 'true', passwordSalt: password.salt, passwordAlgo: password.algo }
        : { hasPassword: 'false' }),
    }
  },

  /** The headers of `POST /api/upload/init`: the frame's values under their header names. */
  toHeaders(declaration: Declaration): Record<string, string> {
    const frame = Declaration.toFrame(declaration) as Partial<Record<FrameField, string>>
    const headers: Record<string, string> = {}
    for (const [field, header] of Object.entries(DECLARATION_HEADERS)) {
      const value = frame[field as FrameField]
      if (value !== undefined) headers[header] = value
    }
    return headers
  },

  /**
   * Decodes the headers of `POST /api/upload` (`sizeHeader` `content-length`) or of
   * `POST /api/upload/init` (`x-content-length`), as a Node server receives them.
   */
  fromHeaders(
    headers: ReceivedHeaderValues,
    limits: DeclarationLimits,
    sizeHeader: DeclaredSizeHeader = RECEIVED_HEADERS.declaredContentLength,
  ): Decoded<Declaration> {
    return decode((header) => headers[header], limits, sizeHeader)
  },

  /**
   * Decodes an `init` frame's `headers`, checked as the HTTP init's headers are and naming a
   * wrong field by its header. Unknown fields are ignored; a field that is not a string is
   * refused as a malformed value; `headers` that are not an object declare nothing.
   */
  fromFrame(frameHeaders: unknown, limits: DeclarationLimits): Decoded<Declaration> {
    const given = (
      typeof frameHeaders === 'object' && frameHeaders !== null ? frameHeaders : {}
    ) as Record<string, unknown>
    const read = (header: string) => {
      const field = FRAME_FIELDS.get(header)
      return field !== undefined && Object.hasOwn(given, field) ? given[field] : undefined
    }
    return decode(read, limits, RECEIVED_HEADERS.declaredContentLength)
  },
}
