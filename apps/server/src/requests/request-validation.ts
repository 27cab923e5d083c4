/**
 * Validation of what arrives on the request and inbox routes (spec: File request record, Upload
 * inside a request, POST /api/request, Uploading into a request): every binary field is canonical
 * unpadded base64url of its exact length, unknown body fields are refused, and the numbers must
 * be ones the server's settings allow. Failures are 400 `Invalid request` with `details`.
 * May touch: nothing (pure).
 */
import {
  CREATE_FILE_REQUEST_FIELDS,
  ERROR_MESSAGES,
  FILE_REQUEST_BRIEF_FIELDS,
  REQUEST_META_MAX_BYTES,
  REQUEST_META_MIN_BYTES,
  REQUEST_META_NONCE_BYTES,
  REQUEST_SALT_BYTES,
  REQUEST_TOKEN_BYTES,
  REQUEST_UPLOAD_FINALIZE_FIELDS,
  REQUEST_VAULT_BYTES,
  REQUEST_VAULT_NONCE_BYTES,
  REQUEST_WRAP_CIPHERTEXT_BYTES,
  REQUEST_WRAP_ENC_BYTES,
  BRIEF_NONCE_BYTES,
  decodeBriefCiphertext,
  decodeCanonicalBytes,
  isAllowedRequestUploads,
  isOneOf,
  parseIntegerStrict,
  requireBoolean,
  requireInteger,
  requireObject,
  RECEIVED_HEADERS,
} from '@fileshare/protocol'

import type { Config } from '../config.js'
import { HttpError } from '../http-error.js'
import { parseNotifyEmail } from '../notify/email-address.js'
import { parseNotifyWebhook } from '../notify/targets.js'
import { hashToken } from '../access/tokens.js'
import { invalid } from '../validation.js'

export type RequestLimitsConfig = Pick<
  Config,
  | 'fileMaxSize'
  | 'fileMaxFilesPerUpload'
  | 'fileRequestExpireOptionsSec'
  | 'fileRequestUploadOptions'
  | 'fileRequestDownloadOptions'
  | 'fileRequestMaxSize'
  | 'forceRequestPassword'
  | 'notify'
>

/** A checked `POST /api/request` body; tokens are already reduced to their stored hashes. */
export interface NewFileRequest {
  vault: Buffer
  vaultNonce: Buffer
  briefCiphertext: Buffer
  briefNonce: Buffer
  uploadTokenHash: Buffer
  inboxTokenHash: Buffer
  inboxOwnerTokenHash: Buffer
  expireSec: number
  maxUploads: number
  /** Slots of `maxUploads` kept for senders' notes that go with files (ours: `senderNotes`). */
  noteSlots: number
  maxSize: number
  downloads: number
  hasPassword: boolean
  /** Where to notify the creator of each finished upload; null for nobody. */
  notifyEmail: string | null
  notifyWebhook: string | null
}

/** What a sender declares when opening an upload into a request (HTTP headers or `init` frame). */
export interface RequestUploadInit {
  /** The canonical `X-Upload-Token`, or null when absent (answered 404 like a wrong one). */
  uploadToken: string | null
  salt: Buffer
  size: number
  fileCount: number
  /**
   * Ours (`X-Sender-Note`): a sender's note that goes with files. After the slot is reserved it
   * says whether the upload holds one of the request's note slots.
   */
  senderNote: boolean
}

/** A checked finalize body (HTTP) or `finalize` frame (WebSocket). */
export interface RequestUploadFinalize {
  wrapEnc: Buffer
  wrapCiphertext: Buffer
  encryptedMeta: Buffer
  metaNonce: Buffer
}

/** Collects one problem per field, so a 400 names everything that is wrong at once. */
class Problems {
  readonly details: Record<string, string> = {}

  check<T>(field: string, read: () => T): T | undefined {
    try {
      return read()
    } catch (error) {
      this.details[field] = error instanceof Error ? error.message : String(error)
      return undefined
    }
  }

  add(field: string, reason: string): void {
    this.details[field] ??= reason
  }

  throwIfAny(): void {
    if (Object.keys(this.details).length > 0) throw invalid(this.details)
  }
}

function bytes(value: unknown, length: number, field: string): Buffer {
  return Buffer.from(decodeCanonicalBytes(value, length, field))
}

/**
 * A request token header: its value when canonical base64url of 32 bytes (spec: Encodings), else
 * null, which answers 404 like any wrong token. Only well-formed tokens reach the comparison, so
 * only they can count toward the lockout.
 */
export function parseRequestToken(value: string | undefined, header: string): string | null {
  if (value === undefined) return null
  try {
    decodeCanonicalBytes(value, REQUEST_TOKEN_BYTES, header)
    return value
  } catch {
    // A token that is not even well-formed is still just a wrong token: 404, like an unknown id
    // (spec: Request tokens), and it never counts toward the lockout.
    return null
  }
}

/** The body as an object of only the `allowed` fields; anything else is a 400 naming `body`. */
function bodyFields(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  try {
    return requireObject(body, allowed)
  } catch (error) {
    throw invalid({ body: error instanceof Error ? error.message : String(error) })
  }
}

/** Checks a `POST /api/request` body against the record's rules and the server's settings. */
export function parseCreateBody(body: unknown, config: RequestLimitsConfig): NewFileRequest {
  const fields = bodyFields(body, CREATE_FILE_REQUEST_FIELDS)
  const problems = new Problems()
  const vault = problems.check('vault', () => bytes(fields.vault, REQUEST_VAULT_BYTES, 'vault'))
  const vaultNonce = problems.check('vaultNonce', () =>
    bytes(fields.vaultNonce, REQUEST_VAULT_NONCE_BYTES, 'vaultNonce'),
  )
  const token = (field: string) =>
    problems.check(field, () => hashToken(bytes(fields[field], REQUEST_TOKEN_BYTES, field)))
  const inboxTokenHash = token('inboxAuthToken')
  const inboxOwnerTokenHash = token('inboxOwnerToken')
  const uploadTokenHash = token('uploadToken')

  const brief = problems.check('brief', () =>
    requireObject(fields.brief, FILE_REQUEST_BRIEF_FIELDS, 'brief'),
  )
  const briefCiphertext = brief
    ? problems.check('brief.ciphertext', () => Buffer.from(decodeBriefCiphertext(brief.ciphertext)))
    : undefined
  const briefNonce = brief
    ? problems.check('brief.nonce', () => bytes(brief.nonce, BRIEF_NONCE_BYTES, 'brief.nonce'))
    : undefined

  const option = (field: string, options: readonly number[]) =>
    problems.check(field, () => {
      const value = requireInteger(fields[field], {}, field)
      if (!isOneOf(value, options)) throw new Error(`${field} must be one of ${options.join(', ')}`)
      return value
    })
  const expireSec = option('expireSec', config.fileRequestExpireOptionsSec)
  const downloads = option('downloads', config.fileRequestDownloadOptions)
  const maxUploads = problems.check('maxUploads', () => {
    const value = requireInteger(fields.maxUploads, { min: 1 }, 'maxUploads')
    if (!isAllowedRequestUploads(value, config.fileRequestUploadOptions)) {
      throw new Error(
        `maxUploads must be one of ${config.fileRequestUploadOptions.join(', ')} or twice one`,
      )
    }
    return value
  })
  const senderNotes = problems.check('senderNotes', () =>
    fields.senderNotes === undefined ? false : requireBoolean(fields.senderNotes, 'senderNotes'),
  )
  if (
    senderNotes === true &&
    maxUploads !== undefined &&
    !(maxUploads % 2 === 0 && isOneOf(maxUploads / 2, config.fileRequestUploadOptions))
  ) {
    problems.add('maxUploads', 'must be twice one of the options with senderNotes')
  }
  const maxSize = problems.check('maxSize', () =>
    requireInteger(fields.maxSize, { min: 1, max: config.fileRequestMaxSize }, 'maxSize'),
  )
  const hasPassword = problems.check('hasPassword', () =>
    requireBoolean(fields.hasPassword, 'hasPassword'),
  )
  if (config.forceRequestPassword && hasPassword === false) {
    problems.add('hasPassword', 'must be true: this server requires a password on requests')
  }
  const notifyEmail = problems.check('notifyEmail', () => {
    if (fields.notifyEmail === undefined) return null
    if (config.notify.smtpUrl === null)
      throw new Error('email notifications are off on this server')
    return parseNotifyEmail(fields.notifyEmail)
  })
  const notifyWebhook = problems.check('notifyWebhook', () =>
    fields.notifyWebhook === undefined
      ? null
      : parseNotifyWebhook(fields.notifyWebhook, config.notify),
  )
  problems.throwIfAny()
  return {
    vault: vault!,
    vaultNonce: vaultNonce!,
    briefCiphertext: briefCiphertext!,
    briefNonce: briefNonce!,
    uploadTokenHash: uploadTokenHash!,
    inboxTokenHash: inboxTokenHash!,
    inboxOwnerTokenHash: inboxOwnerTokenHash!,
    expireSec: expireSec!,
    maxUploads: maxUploads!,
    noteSlots: senderNotes === true ? maxUploads! / 2 : 0,
    maxSize: maxSize!,
    downloads: downloads!,
    hasPassword: hasPassword!,
    notifyEmail: notifyEmail ?? null,
    notifyWebhook: notifyWebhook ?? null,
  }
}

export interface RequestUploadInitValues {
  uploadToken?: string | undefined
  salt?: string | undefined
  contentLength?: string | undefined
  fileCount?: string | undefined
  senderNote?: string | undefined
}

/**
 * Checks the init values of an upload into a request (spec: POST /api/request/:id/upload/init):
 * 400 for an invalid value or too many files, 413 for a size over FILE_MAX_SIZE. A malformed
 * token becomes null here; whether the token opens the request (404 if not) is for `beginUpload`.
 */
export function parseUploadInitValues(
  values: RequestUploadInitValues,
  config: Pick<Config, 'fileMaxSize' | 'fileMaxFilesPerUpload'>,
): RequestUploadInit {
  const problems = new Problems()
  const uploadToken = parseRequestToken(values.uploadToken, RECEIVED_HEADERS.uploadToken)
  const salt = problems.check(RECEIVED_HEADERS.salt, () =>
    bytes(values.salt, REQUEST_SALT_BYTES, RECEIVED_HEADERS.salt),
  )
  const size = problems.check(RECEIVED_HEADERS.declaredContentLength, () =>
    parseIntegerStrict(values.contentLength, { min: 1 }, RECEIVED_HEADERS.declaredContentLength),
  )
  const fileCount = problems.check(RECEIVED_HEADERS.fileCount, () =>
    values.fileCount === undefined
      ? 1
      : parseIntegerStrict(values.fileCount, { min: 1 }, RECEIVED_HEADERS.fileCount),
  )
  const senderNote = problems.check(RECEIVED_HEADERS.senderNote, () => {
    if (values.senderNote === undefined || values.senderNote === 'false') return false
    if (values.senderNote === 'true') return true
    throw new Error('x-sender-note must be true or false')
  })
  problems.throwIfAny()
  if (fileCount! > config.fileMaxFilesPerUpload) {
    throw new HttpError(400, ERROR_MESSAGES.tooManyFiles, {
      details: { [RECEIVED_HEADERS.fileCount]: `must be at most ${config.fileMaxFilesPerUpload}` },
    })
  }
  if (size! > config.fileMaxSize) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
  return {
    uploadToken: uploadToken ?? null,
    salt: salt!,
    size: size!,
    fileCount: fileCount!,
    senderNote: senderNote!,
  }
}

/** Checks a finalize body or frame fields; it never touches the session (spec: finalize, 400). */
export function parseFinalizeBody(body: unknown): RequestUploadFinalize {
  const fields = bodyFields(body, REQUEST_UPLOAD_FINALIZE_FIELDS)
  const problems = new Problems()
  const wrapEnc = problems.check('wrapEnc', () =>
    bytes(fields.wrapEnc, REQUEST_WRAP_ENC_BYTES, 'wrapEnc'),
  )
  const wrapCiphertext = problems.check('wrapCiphertext', () =>
    bytes(fields.wrapCiphertext, REQUEST_WRAP_CIPHERTEXT_BYTES, 'wrapCiphertext'),
  )
  const encryptedMeta = problems.check('encryptedMeta', () =>
    Buffer.from(
      decodeCanonicalBytes(
        fields.encryptedMeta,
        [REQUEST_META_MIN_BYTES, REQUEST_META_MAX_BYTES],
        'encryptedMeta',
      ),
    ),
  )
  const metaNonce = problems.check('metaNonce', () =>
    bytes(fields.metaNonce, REQUEST_META_NONCE_BYTES, 'metaNonce'),
  )
  problems.throwIfAny()
  return {
    wrapEnc: wrapEnc!,
    wrapCiphertext: wrapCiphertext!,
    encryptedMeta: encryptedMeta!,
    metaNonce: metaNonce!,
  }
}
