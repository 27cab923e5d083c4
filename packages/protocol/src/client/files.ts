/**
 * File shares from end to end: encrypt and send a payload, read its public info, unlock it
 * (with a password when it has one), download and decrypt it as a stream, delete it.
 */
import { fromBase64, fromBase64Url, toBase64, toBase64Url } from '../encoding.js'
import {
  deriveUploadKeys,
  generateSecret,
  generateUploadSalt,
  type UploadKeys,
} from '../crypto/keys.js'
import { buildLink, type FileLink } from '../crypto/link.js'
import { decryptMetadata, encryptMetadata, type FileMetadata } from '../crypto/metadata.js'
import { derivePasswordKey, lockSecret, protectSecret, wrongPassword } from '../crypto/password.js'
import { ProtocolError } from '../errors.js'
import type { RecordCipherOption } from '../crypto/stream.js'
import { encryptedSize } from '../sizes.js'
import { PASSWORD_ALGO } from '../wire/common.js'
import type { Declaration } from '../wire/declaration.js'
import { HEADERS } from '../wire/headers.js'
import { PATHS } from '../wire/routes.js'
import { READ_GRANT_REQUEST } from '../wire/uploads.js'
import type {
  PasswordCheckResponse,
  UploadInfoResponse,
  UploadMetaFields,
} from '../wire/uploads.js'
import { isApiError } from './api-error.js'
import type { ApiClient } from './api.js'
import { openDownload, type DownloadOptions, type DownloadResult } from './download.js'
import type { RangeOpener } from './download-resume.js'
import { fetchGrantedRange, uploadSource } from './granted-range.js'
import { unlockKeys } from './password-lock.js'
import { requireSameId } from './server-id.js'
import { checkResumedSize, ciphertextFrom } from './ciphertext-from.js'
import type { PayloadSource } from './source.js'
import { sealedRecords, startOrResume, uploadState, withCallerOptions } from './caller-upload.js'
import type { KeptState, StateResumeOptions, UploadState } from './caller-upload.js'
import { cancelUnfinished } from './upload.js'
import type { UploadCallbacks, UploadSession, UploadTransport } from './upload.js'
import { fetchUploadStatus } from './upload-status.js'

export type { DownloadOptions, DownloadResult } from './download.js'

export interface SendFileOptions extends UploadCallbacks, RecordCipherOption {
  /** One of the config's `expireOptions`. */
  expireSec: number
  /** One of the config's `downloadOptions`. */
  maxDownloads: number
  /**
   * Locks the link with `argon2id-v2` when set and non-empty; resuming a password-protected
   * upload takes it again.
   */
  password?: string
  /** Names, types and sizes; encrypted and saved after the upload. */
  metadata: FileMetadata
  /** 1 for a single file, the number of files for an archive. */
  fileCount: number
  /** Resuming after lost connections; `onState` receives what resuming in another run takes. */
  resume?: FileResumeOptions | undefined
}

export type FileResumeOptions = StateResumeOptions<FileUploadState>

/** Of a password-protected link: the secret the link carries, and the password salt. */
export interface PasswordLockState {
  protectedSecret: string
  passwordSalt: string
}

/** An upload without a password: the secret itself, and the owner token derived from it. */
export interface OpenFileUploadState extends UploadState {
  secret: string
  /** For a status request or a cancel. */
  ownerToken: string
}

/**
 * A password-protected upload: only what the password protects (docs/crypto.md, "Resuming"); the
 * secret and the owner token are derived again from the password when it is given to resume.
 */
export interface LockedFileUploadState extends UploadState {
  passwordLock: PasswordLockState
}

/**
 * What continuing an unfinished file upload in another run takes besides its source (which must
 * be the same bytes: the record tags kept with it prove that as they are sealed again).
 */
export type FileUploadState = OpenFileUploadState | LockedFileUploadState

export function isLockedFileUploadState(state: FileUploadState): state is LockedFileUploadState {
  return 'passwordLock' in state && typeof state.passwordLock === 'object'
}

export interface SentFile {
  id: string
  /** The share link with its key (`/d/<id>#…`). */
  link: string
  /** When the upload expires, as the server stored it. */
  expiresAt: string
  maxDownloads: number
  /** Proves ownership: `deleteFile(api, id, ownerToken)`. */
  ownerToken: string
  transport: UploadTransport
  hasPassword: boolean
}

export interface UnlockedFile {
  id: string
  keys: UploadKeys
  /** Decrypted metadata; null when the sender never saved any. */
  metadata: FileMetadata | null
  /** The public info the file was unlocked with. */
  info: UploadInfoResponse
}

/** Encrypts `source` and uploads it; returns the share link and the owner token. */
export async function sendFile(
  api: ApiClient,
  source: PayloadSource,
  options: SendFileOptions,
): Promise<SentFile> {
  const secret = generateSecret()
  const salt = generateUploadSalt()
  const lock = options.password ? await lockSecret(secret, options.password) : undefined
  const passwordLock = lock && {
    protectedSecret: toBase64Url(lock.protectedSecret),
    passwordSalt: toBase64Url(lock.passwordSalt),
  }
  return transferFile(api, source, options, { secret, salt, passwordLock })
}

/**
 * Continues an upload `sendFile` began (in another run), from its kept state and the same
 * `source`, then finishes it as `sendFile` does. A password-protected upload takes its password
 * again (`options.password`); a wrong one throws WRONG_PASSWORD and leaves the upload as it was.
 * Without kept record tags the unfinished upload is ended and `source` sent afresh under a new
 * secret (the same password), its new state told by `onState`.
 */
export async function resumeSendFile(
  api: ApiClient,
  source: PayloadSource,
  kept: KeptState<FileUploadState>,
  options: SendFileOptions,
): Promise<SentFile> {
  const { state, sealed } = kept
  checkResumedSize(source, state.size)
  const { secret, ownerToken } = await unlockFileUploadState(api, state, options.password)
  if (sealed === undefined) {
    await cancelUnfinished(api, { kind: 'file', ownerToken }, state.session.id)
    return sendFile(api, source, options)
  }
  return transferFile(api, source, options, {
    secret,
    salt: fromBase64Url(state.salt),
    passwordLock: isLockedFileUploadState(state) ? state.passwordLock : undefined,
    session: state.session,
    sealed,
  })
}

/**
 * The secret and the owner token of an unfinished upload's state: kept as they are, or for a
 * password-protected upload derived again from `password` (Argon2id) and checked by asking the
 * server how far the upload got; WRONG_PASSWORD when the server refuses the derived owner token.
 */
export async function unlockFileUploadState(
  api: ApiClient,
  state: FileUploadState,
  password: string | undefined,
): Promise<{ secret: Uint8Array; ownerToken: string }> {
  if (!isLockedFileUploadState(state)) {
    return { secret: fromBase64Url(state.secret), ownerToken: state.ownerToken }
  }
  if (!password) {
    throw new ProtocolError('WRONG_PASSWORD', 'The upload is password-protected: give its password')
  }
  const passwordKey = await derivePasswordKey(
    password,
    fromBase64Url(state.passwordLock.passwordSalt),
  )
  const secret = protectSecret(fromBase64Url(state.passwordLock.protectedSecret), passwordKey)
  const { ownerToken } = await deriveUploadKeys(secret, fromBase64Url(state.salt))
  try {
    await fetchUploadStatus(api, { kind: 'file', ownerToken }, state.session, state.size)
  } catch (error) {
    if (isApiError(error, 401)) throw wrongPassword()
    throw error
  }
  return { secret, ownerToken }
}

interface FileSecrets {
  secret: Uint8Array
  salt: Uint8Array
  passwordLock: PasswordLockState | undefined
  /** The session to continue, and the tags of the records sealed for it; none starts anew. */
  session?: UploadSession
  sealed?: Uint8Array
}

async function transferFile(
  api: ApiClient,
  source: PayloadSource,
  options: SendFileOptions,
  { secret, salt, passwordLock, session, sealed }: FileSecrets,
): Promise<SentFile> {
  const keys = await deriveUploadKeys(secret, salt)
  // Sealed before anything is sent: a file list too long to store fails without an upload.
  const meta = await encryptMetadata(keys.metaKey, options.metadata)
  const size = encryptedSize(source.size)
  const declaration: Declaration = {
    authToken: keys.authToken,
    ownerToken: keys.ownerToken,
    salt: toBase64Url(salt),
    maxDownloads: options.maxDownloads,
    expireSec: options.expireSec,
    fileCount: options.fileCount,
    size,
    password: passwordLock ? { salt: passwordLock.passwordSalt, algo: PASSWORD_ALGO } : null,
  }
  const upload = withCallerOptions(
    {
      target: { kind: 'file', declaration },
      size,
      ciphertext: ciphertextFrom(source, keys.fileKey, {
        cipher: options.cipher,
        sealed: sealedRecords(source, sealed, options.resume),
      }),
    },
    options,
    (named): FileUploadState => {
      const base = uploadState(named, salt, size)
      // A password-protected upload keeps what the password protects, never the secret.
      return passwordLock
        ? { ...base, passwordLock }
        : { ...base, secret: toBase64Url(secret), ownerToken: keys.ownerToken }
    },
  )
  const { id, transport } = await startOrResume(api, session, upload)

  const owner = { [HEADERS.ownerToken]: keys.ownerToken }
  await api.json('POST', PATHS.meta(id), {
    headers: owner,
    json: { encryptedMeta: toBase64(meta.ciphertext), nonce: toBase64(meta.nonce) },
  })
  const info = await api.json<UploadInfoResponse>('GET', PATHS.info(id))
  const link = buildLink(api.baseUrl, {
    kind: 'file',
    id,
    secret: passwordLock ? fromBase64Url(passwordLock.protectedSecret) : secret,
    hasPassword: passwordLock !== undefined,
  })
  return {
    id,
    link,
    expiresAt: info.expiresAt,
    maxDownloads: info.maxDownloads,
    ownerToken: keys.ownerToken,
    transport,
    hasPassword: passwordLock !== undefined,
  }
}

/** `GET /api/info/:id`: counts nothing. 404 and 410 throw ApiError. */
export async function inspectFile(api: ApiClient, link: FileLink): Promise<UploadInfoResponse> {
  const info = await api.json<UploadInfoResponse>('GET', PATHS.info(link.id))
  requireSameId(info.id, link.id, 'upload')
  return info
}

/**
 * Derives the keys of a file and opens its metadata. With a password: Argon2id, then
 * `POST /api/password/:id`, whose answer carries the metadata (info withholds it from protected
 * uploads, so no guess can be tested offline); a wrong password throws
 * ProtocolError('WRONG_PASSWORD'), a lockout ApiError 429 with retryAfterSec.
 * A password-protected link without a password throws ProtocolError('WRONG_PASSWORD') too.
 */
export async function unlockFile(
  api: ApiClient,
  link: FileLink,
  info: UploadInfoResponse,
  password?: string,
): Promise<UnlockedFile> {
  const { keys, answer } = await unlockKeys(link, info, password, deriveUploadKeys, (candidate) =>
    api.json<PasswordCheckResponse>('POST', PATHS.password(link.id), {
      headers: { [HEADERS.authToken]: candidate.authToken },
    }),
  )
  // Info withholds the metadata of a protected upload: the password check answers it instead.
  const sealed: UploadMetaFields | null = answer ?? (info.hasPassword ? null : info)
  let metadata: FileMetadata | null = null
  if (typeof sealed?.encryptedMeta === 'string' && typeof sealed.nonce === 'string') {
    metadata = await decryptMetadata(keys.metaKey, {
      ciphertext: fromBase64(sealed.encryptedMeta),
      nonce: fromBase64(sealed.nonce),
    })
  }
  return { id: link.id, keys, metadata, info }
}

/**
 * Counts one download (`GET /api/download/:id`) and returns the decrypting stream. On S3 the
 * server answers a presigned URL, fetched without credentials or auth headers. With
 * `options.resume`, the download asks for a read grant, and a body that breaks off is read on
 * from the byte reached with ranges under it, counting nothing more (docs/api.md, Read grants).
 */
export async function downloadFile(
  api: ApiClient,
  unlocked: UnlockedFile,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const source = uploadSource(unlocked.id, unlocked.keys.authToken)
  const resuming = (options.resume?.retryForMs ?? 0) > 0
  const { auth } = source
  const headers = resuming ? { ...auth, [HEADERS.readGrant]: READ_GRANT_REQUEST } : auth
  const init: { headers: Record<string, string>; signal?: AbortSignal } = { headers }
  if (options.signal) init.signal = options.signal
  const response = await api.raw('GET', source.path, init)
  const grant = resuming ? response.headers.get(HEADERS.readGrant) : null
  const reopen =
    grant === null
      ? null
      : (size: number): RangeOpener =>
          (offset) =>
            fetchGrantedRange(api, {
              source,
              grant,
              from: offset,
              to: size - 1,
              size,
              signal: options.signal,
            })
  return openDownload(api, response, unlocked.keys.fileKey, options, reopen)
}

/** `DELETE /api/upload/:id` with the owner token. */
export async function deleteFile(api: ApiClient, id: string, ownerToken: string): Promise<void> {
  await api.json('DELETE', PATHS.uploadById(id), { headers: { [HEADERS.ownerToken]: ownerToken } })
}
