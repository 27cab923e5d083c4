/**
 * An upload into a request's declaration (spec: POST /api/request/:id/upload/init, Uploading into
 * a request): the upload token, salt, size and file count a sender states before its bytes, with
 * its two spellings, the headers of the HTTP init and the `request` of an `init` frame. Clients
 * encode it with `toHeaders` / `toFrame`; the server decodes either with `fromHeaders` /
 * `fromFrame`, which answer the typed declaration or the spec's refusal. Pure; touches nothing.
 */
import { canonicalToken, decodeCanonicalBytes, parseIntegerStrict } from '../validate.js'
import type { CanonicalBase64Url } from './common.js'
import {
  invalidDeclaration,
  type Decoded,
  type DeclarationRefusal,
  type ReceivedHeaderValues,
} from './declaration.js'
import { ERROR_MESSAGES } from './errors.js'
import { HEADERS, RECEIVED_HEADERS } from './headers.js'
import { REQUEST_SALT_BYTES, REQUEST_TOKEN_BYTES } from './limits.js'
import type { RequestUploadWsInit } from './ws-frames.js'

/** What a sender declares when opening an upload into a request. */
export interface RequestDeclaration {
  /** The canonical upload token; null when absent or malformed (answered 404 like a wrong one). */
  uploadToken: CanonicalBase64Url | null
  /** 32 bytes. */
  salt: CanonicalBase64Url
  /** Exact size of the whole encrypted payload. */
  size: number
  fileCount: number
  /** Ours: a sender's note that goes with files. */
  senderNote: boolean
}

/** The settings a request upload's declaration is checked against. */
export interface RequestDeclarationLimits {
  maxSize: number
  maxFilesPerUpload: number
}

type Field = keyof RequestUploadWsInit

/** Each field of the `init` frame's `request` and the header that carries it over HTTP. */
const FIELD_HEADERS = {
  uploadToken: RECEIVED_HEADERS.uploadToken,
  salt: RECEIVED_HEADERS.salt,
  contentLength: RECEIVED_HEADERS.declaredContentLength,
  fileCount: RECEIVED_HEADERS.fileCount,
  senderNote: RECEIVED_HEADERS.senderNote,
} as const satisfies Record<Field, string>

/**
 * Checks the declared values as header text: 400 for an invalid value or too many files, 413 for
 * a size over the limit. A malformed token becomes null; whether it opens the request is the
 * server's to judge.
 */
function decode(
  read: (field: Field) => string | undefined,
  limits: RequestDeclarationLimits,
): Decoded<RequestDeclaration> {
  const details: Record<string, string> = {}
  const check = <T>(field: Field, parse: (header: string) => T): T | undefined => {
    try {
      return parse(FIELD_HEADERS[field])
    } catch (error) {
      details[FIELD_HEADERS[field]] = error instanceof Error ? error.message : String(error)
      return undefined
    }
  }
  const uploadToken = canonicalToken(read('uploadToken'), REQUEST_TOKEN_BYTES)
  const salt = check('salt', (header) => {
    decodeCanonicalBytes(read('salt'), REQUEST_SALT_BYTES, header)
    return read('salt')!
  })
  const size = check('contentLength', (header) =>
    parseIntegerStrict(read('contentLength'), { min: 1 }, header),
  )
  const fileCount = check('fileCount', (header) => {
    const text = read('fileCount')
    return text === undefined ? 1 : parseIntegerStrict(text, { min: 1 }, header)
  })
  const senderNote = check('senderNote', (header) => {
    const text = read('senderNote')
    if (text === undefined || text === 'false') return false
    if (text === 'true') return true
    throw new Error(`${header} must be true or false`)
  })
  if (Object.keys(details).length > 0) return { ok: false, refusal: invalidDeclaration(details) }
  if (fileCount! > limits.maxFilesPerUpload) {
    const refusal: DeclarationRefusal = {
      status: 400,
      message: ERROR_MESSAGES.tooManyFiles,
      details: { [RECEIVED_HEADERS.fileCount]: `must be at most ${limits.maxFilesPerUpload}` },
    }
    return { ok: false, refusal }
  }
  if (size! > limits.maxSize) {
    return { ok: false, refusal: { status: 413, message: ERROR_MESSAGES.fileTooLarge } }
  }
  return {
    ok: true,
    value: {
      uploadToken,
      salt: salt!,
      size: size!,
      fileCount: fileCount!,
      senderNote: senderNote!,
    },
  }
}

/**
 * A frame value as the text its header would carry: strings as they are, integers in decimal
 * (the spec's frame has integers where the route has header text) and any other JSON value as
 * its JSON text (`true` for `senderNote`, as its header spells it), so each is refused as its
 * header would be.
 */
function headerText(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value).toString()
  return JSON.stringify(value)
}

export const RequestDeclaration = {
  /** The `request` of an `init` frame. */
  toFrame(declaration: RequestDeclaration): RequestUploadWsInit {
    return {
      uploadToken: declaration.uploadToken ?? '',
      salt: declaration.salt,
      contentLength: declaration.size,
      fileCount: declaration.fileCount,
      ...(declaration.senderNote ? { senderNote: true } : {}),
    }
  },

  /** The headers of `POST /api/request/:id/upload/init`. */
  toHeaders(declaration: RequestDeclaration): Record<string, string> {
    return {
      [HEADERS.uploadToken]: declaration.uploadToken ?? '',
      [HEADERS.salt]: declaration.salt,
      [HEADERS.declaredContentLength]: String(declaration.size),
      [HEADERS.fileCount]: String(declaration.fileCount),
      ...(declaration.senderNote ? { [HEADERS.senderNote]: 'true' } : {}),
    }
  },

  /** Decodes the init's headers as a Node server receives them (lower-case names). */
  fromHeaders(
    headers: ReceivedHeaderValues,
    limits: RequestDeclarationLimits,
  ): Decoded<RequestDeclaration> {
    return decode((field) => headers[FIELD_HEADERS[field]], limits)
  },

  /**
   * Decodes an `init` frame's `request`, naming a wrong field by its header. `contentLength` and
   * `fileCount` may be JSON integers or decimal strings (docs/api.md). Unknown fields are
   * ignored; a `request` that is not an object is refused.
   */
  fromFrame(request: unknown, limits: RequestDeclarationLimits): Decoded<RequestDeclaration> {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return { ok: false, refusal: invalidDeclaration({ request: 'must be an object' }) }
    }
    const given = request as Record<string, unknown>
    return decode(
      (field) => headerText(Object.hasOwn(given, field) ? given[field] : undefined),
      limits,
    )
  },
}
