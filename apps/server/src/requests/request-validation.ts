/**
 * Validation of what arrives on the request and inbox routes (spec: File request record, Upload
 * inside a request, POST /api/request, Uploading into a request): every binary field is canonical
 * unpadded base64url of its exact length, unknown body fields are refused, and the numbers must
 * be ones the server's settings allow. Failures are 400 `Invalid request` with `details`. Also
 * the context a session uploading into a request carries, and how to pick a request's sessions.
 * May touch: nothing (pure).
 */
import {
  CREATE_FILE_REQUEST_FIELDS,
  FILE_REQUEST_BRIEF_FIELDS,
  REQUEST_META_MAX_BYTES,
  REQUEST_META_MIN_BYTES,
  REQUEST_META_NONCE_BYTES,
  REQUEST_TOKEN_BYTES,
  REQUEST_UPLOAD_FINALIZE_FIELDS,
  REQUEST_VAULT_BYTES,
  REQUEST_VAULT_NONCE_BYTES,
  REQUEST_WRAP_CIPHERTEXT_BYTES,
  REQUEST_WRAP_ENC_BYTES,
  BRIEF_NONCE_BYTES,
  canonicalToken,
  decodeBriefCiphertext,
  type ByteLength,
  decodeCanonicalBytes,
  isAllowedRequestUploads,
  isOneOf,
  requireBoolean,
  requireInteger,
  requireObject,
} from '@fileshare/protocol'

import type { Config } from '../config.js'
import type { requestUploads } from '../db/schema-pg.js'
import { parseNotifyEmail } from '../notify/email.js'
import { parseNotifyWebhook } from '../notify/webhook.js'
import { hashToken } from '../access/tokens.js'
import { invalid } from '../validation.js'

/** What a sender declares when opening an upload into a request (HTTP headers or `init` frame). */
export interface RequestUploadInit {
  /** The canonical `X-Upload-Token`, or null when absent (answered 404 like a wrong one). */
  uploadToken: string | null
  salt: Buffer
  size: number
  fileCount: number
  /** Ours (`X-Sender-Note`): a note with files; once admitted, whether it holds a note slot. */
  senderNote: boolean
}

/** The context of a session uploading into a request (normal uploads carry `kind: 'file'`). */
export interface RequestUploadContext {
  kind: 'request'
  requestId: string
  init: RequestUploadInit
  clientIp: string
}

/** Picks the upload sessions of request `requestId`. */
export function belongsTo(requestId: string) {
  return (context: unknown): context is RequestUploadContext => {
    const request = context as RequestUploadContext | undefined
    return request?.kind === 'request' && request.requestId === requestId
  }
}

/** A checked finalize body (HTTP) or `finalize` frame (WebSocket). */
export type RequestUploadFinalize = Pick<
  typeof requestUploads.$inferSelect,
  'wrapEnc' | 'wrapCiphertext' | 'encryptedMeta' | 'metaNonce'
>

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

  /** `value` as canonical base64url of `length` bytes. */
  bytes(field: string, value: unknown, length: ByteLength): Buffer | undefined {
    return this.check(field, () => Buffer.from(decodeCanonicalBytes(value, length, field)))
  }

  add(field: string, reason: string): void {
    this.details[field] ??= reason
  }

  throwIfAny(): void {
    if (Object.keys(this.details).length > 0) throw invalid(this.details)
  }
}

/**
 * A request token header when canonical base64url of 32 bytes (spec: Encodings), else null, which
 * answers 404 like a wrong token; only well-formed tokens can count toward the lockout.
 */
export function parseRequestToken(value: string | undefined): string | null {
  return canonicalToken(value, REQUEST_TOKEN_BYTES)
}

/** The body as an object of only the `allowed` fields; anything else is a 400 naming `body`. */
function bodyFields(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  try {
    return requireObject(body, allowed)
  } catch (error) {
    throw invalid({ body: error instanceof Error ? error.message : String(error) })
  }
}

/** Checks a `POST /api/request` body: the request's columns (tokens as hashes) and `expireSec`. */
export function parseCreateBody(body: unknown, config: Config) {
  const fields = bodyFields(body, CREATE_FILE_REQUEST_FIELDS)
  const problems = new Problems()
  const vault = problems.bytes('vault', fields.vault, REQUEST_VAULT_BYTES)
  const vaultNonce = problems.bytes('vaultNonce', fields.vaultNonce, REQUEST_VAULT_NONCE_BYTES)
  const token = (field: string) => {
    const bytes = problems.bytes(field, fields[field], REQUEST_TOKEN_BYTES)
    return bytes && hashToken(bytes)
  }
  const inboxTokenHash = token('inboxAuthToken')
  const inboxOwnerTokenHash = token('inboxOwnerToken')
  const uploadTokenHash = token('uploadToken')

  const brief = problems.check('brief', () =>
    requireObject(fields.brief, FILE_REQUEST_BRIEF_FIELDS, 'brief'),
  )
  const briefCiphertext = brief
    ? problems.check('brief.ciphertext', () => Buffer.from(decodeBriefCiphertext(brief.ciphertext)))
    : undefined
  const briefNonce = brief && problems.bytes('brief.nonce', brief.nonce, BRIEF_NONCE_BYTES)

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

/** Checks a finalize body or frame fields; it never touches the session (spec: finalize, 400). */
export function parseFinalizeBody(body: unknown): RequestUploadFinalize {
  const fields = bodyFields(body, REQUEST_UPLOAD_FINALIZE_FIELDS)
  const problems = new Problems()
  const wrapEnc = problems.bytes('wrapEnc', fields.wrapEnc, REQUEST_WRAP_ENC_BYTES)
  const wrapCiphertext = problems.bytes(
    'wrapCiphertext',
    fields.wrapCiphertext,
    REQUEST_WRAP_CIPHERTEXT_BYTES,
  )
  const metaSize = [REQUEST_META_MIN_BYTES, REQUEST_META_MAX_BYTES] as const
  const encryptedMeta = problems.bytes('encryptedMeta', fields.encryptedMeta, metaSize)
  const metaNonce = problems.bytes('metaNonce', fields.metaNonce, REQUEST_META_NONCE_BYTES)
  problems.throwIfAny()
  return {
    wrapEnc: wrapEnc!,
    wrapCiphertext: wrapCiphertext!,
    encryptedMeta: encryptedMeta!,
    metaNonce: metaNonce!,
  }
}
