/**
 * File requests, the requester's creation and the sender's side: read a request (decrypting its
 * brief) and upload files or a note into it. The requester's inbox is in inbox.ts.
 */
import { fromBase64Url, toBase64Url, utf8 } from '../encoding.js'
import { deriveUploadKeys, generateSecret } from '../crypto/keys.js'
import { buildLink, type RequestLink } from '../crypto/link.js'
import { encryptMetadata, type FileMetadata } from '../crypto/metadata.js'
import { lockSecret } from '../crypto/password.js'
import {
  createRequest,
  deriveUploadToken,
  openBrief,
  prepareUploadWrap,
  wrapUploadSecret,
  type RequestBrief,
} from '../crypto/request.js'
import type { RecordCipherOption } from '../crypto/stream.js'
import { randomBytes } from '../crypto/primitives.js'
import { encryptedSize } from '../sizes.js'
import { HEADERS } from '../wire/headers.js'
import { REQUEST_SALT_BYTES } from '../wire/limits.js'
import type {
  CreateFileRequestBody,
  CreateFileRequestResponse,
  FileRequestResponse,
} from '../wire/requests.js'
import { PATHS } from '../wire/routes.js'
import type { ApiClient } from './api.js'
import { requireServerId } from './server-id.js'
import { checkResumedSize, ciphertextFrom } from './ciphertext-from.js'
import { bytesSource, type PayloadSource } from './source.js'
import { sealedRecords, startOrResume, uploadState, withCallerOptions } from './caller-upload.js'
import type { KeptState, StateResumeOptions, UploadState } from './caller-upload.js'
import { cancelUnfinished } from './upload.js'
import type { UploadSession, UploadCallbacks, UploadTransport } from './upload.js'

export interface CreateFileRequestOptions {
  /** Shown to senders (encrypted in the brief). */
  message: string
  /**
   * Whether senders may add a note. A note is a second upload, so with `acceptsNote` the
   * request reserves twice `maxUploads` slots on the server, half of them kept for notes.
   */
  acceptsNote?: boolean
  /** One of the config's `fileRequestExpireOptions`. */
  expireSec: number
  /** Submissions allowed: one of the config's `fileRequestUploadOptions`. */
  maxUploads: number
  /** Largest encrypted size of one upload, at most the config's `fileRequestMaxSize`. */
  maxSize: number
  /** Downloads per upload: one of the config's `fileRequestDownloadOptions`. */
  downloads: number
  /** Protects the inbox link with `argon2id-v2` when set and non-empty. */
  password?: string
  /** An address the server mails once per finished upload (the server learns it). */
  notifyEmail?: string
  /** An https URL the server sends a signed POST once per finished upload. */
  notifyWebhook?: string
}

export interface CreatedFileRequest {
  id: string
  /** For senders (`/r/<id>#…`). */
  uploadLink: string
  /** For the requester (`/i/<id>#…`), protected by the password when one was given. */
  inboxLink: string
  closesAt: string
  /** `X-Inbox-Owner-Token`: closes or deletes the request without opening the inbox. */
  inboxOwnerToken: string
  /** With `notifyWebhook`: the key that verifies the webhook's signature, given this once. */
  notifyWebhookSecret?: string
}

export interface OpenedRequest {
  id: string
  brief: RequestBrief
  /** The requester's P-256 public key from the brief: what uploads are wrapped to. */
  publicKey: Uint8Array
  /** `X-Upload-Token`. */
  uploadToken: string
  open: boolean
  closesAt: string
  /** Slots left; count submissions with `submissionsLeft` (submissions.ts). */
  uploadsLeft: number
  /** Note slots left, when the request keeps slots for notes that go with files. */
  notesLeft?: number
  /** Largest encrypted size of one upload. */
  maxUploadSize: number
  maxFilesPerUpload: number
}

export interface SendToRequestOptions extends UploadCallbacks, RecordCipherOption {
  metadata: FileMetadata
  fileCount: number
  /** A sender's note going with files (its metadata names them): takes a note's slot. */
  senderNote?: boolean
  /** Resuming after lost connections; `onState` receives what resuming in another run takes. */
  resume?: RequestResumeOptions | undefined
}

export type RequestResumeOptions = StateResumeOptions<RequestUploadState>

/**
 * What continuing an unfinished upload into a request takes in another run, besides the opened
 * request and the same source (proved by the record tags kept with it).
 */
export interface RequestUploadState extends UploadState {
  /** The upload's secret, canonical base64url: keep it as private as a link. */
  secret: string
}

export interface SentToRequest {
  id: string
  transport: UploadTransport
}

/** Name and type of the one file a sender's note is sent as. */
export const REQUEST_NOTE_FILE = { name: 'note.txt', type: 'text/plain; charset=utf-8' } as const

/** Creates a request: key pair, brief, vault and tokens; `POST /api/request`. */
export async function createFileRequest(
  api: ApiClient,
  options: CreateFileRequestOptions,
): Promise<CreatedFileRequest> {
  const acceptsNote = options.acceptsNote ?? false
  const created = await createRequest({ message: options.message, acceptsNote })
  const lock = options.password
    ? await lockSecret(created.inboxSecret, options.password)
    : undefined
  const body: CreateFileRequestBody = {
    ...created.fields,
    expireSec: options.expireSec,
    maxUploads: acceptsNote ? options.maxUploads * 2 : options.maxUploads,
    ...(acceptsNote ? { senderNotes: true } : {}),
    maxSize: options.maxSize,
    downloads: options.downloads,
    hasPassword: lock !== undefined,
    ...(options.notifyEmail === undefined ? {} : { notifyEmail: options.notifyEmail }),
    ...(options.notifyWebhook === undefined ? {} : { notifyWebhook: options.notifyWebhook }),
  }
  const answer = await api.json<CreateFileRequestResponse>('POST', PATHS.request(), { json: body })
  const id = requireServerId(answer.id, 'request')
  const uploadLink = buildLink(api.baseUrl, {
    kind: 'request',
    id,
    secret: created.uploadSecret,
  })
  const inboxLink = buildLink(
    api.baseUrl,
    lock
      ? {
          kind: 'inbox',
          id,
          secret: lock.protectedSecret,
          passwordSalt: lock.passwordSalt,
        }
      : { kind: 'inbox', id, secret: created.inboxSecret },
  )
  created.inboxSecret.fill(0)
  return {
    id,
    uploadLink,
    inboxLink,
    closesAt: answer.closesAt,
    inboxOwnerToken: created.fields.inboxOwnerToken,
    ...(answer.notifyWebhookSecret === undefined
      ? {}
      : { notifyWebhookSecret: answer.notifyWebhookSecret }),
  }
}

/** `GET /api/request/:id` with the upload token; decrypts the brief. 404 throws ApiError. */
export async function openRequest(api: ApiClient, link: RequestLink): Promise<OpenedRequest> {
  const uploadToken = await deriveUploadToken(link.secret)
  const answer = await api.json<FileRequestResponse>('GET', PATHS.requestById(link.id), {
    headers: { [HEADERS.uploadToken]: uploadToken },
  })
  const { brief, publicKey } = await openBrief(link.secret, {
    ciphertext: fromBase64Url(answer.brief.ciphertext),
    nonce: fromBase64Url(answer.brief.nonce),
  })
  return {
    id: link.id,
    brief,
    publicKey,
    uploadToken,
    open: answer.open,
    closesAt: answer.closesAt,
    uploadsLeft: answer.uploadsLeft,
    maxUploadSize: answer.maxUploadSize,
    maxFilesPerUpload: answer.maxFilesPerUpload,
    ...(typeof answer.notesLeft === 'number' ? { notesLeft: answer.notesLeft } : {}),
  }
}

/**
 * Encrypts `source` under a fresh secret, uploads it into the request on either transport, and
 * finalizes with the secret wrapped to the requester's key and the encrypted metadata.
 */
export async function sendToRequest(
  api: ApiClient,
  opened: OpenedRequest,
  source: PayloadSource,
  options: SendToRequestOptions,
): Promise<SentToRequest> {
  return transferToRequest(api, opened, source, options, {
    secret: generateSecret(),
    salt: randomBytes(REQUEST_SALT_BYTES),
  })
}

/**
 * Continues an upload `sendToRequest` began (in another run), from its kept state and the same
 * source. Without kept record tags the unfinished upload is ended and `source` sent afresh under
 * a new secret, its new state told by `onState`.
 */
export async function resumeSendToRequest(
  api: ApiClient,
  opened: OpenedRequest,
  source: PayloadSource,
  kept: KeptState<RequestUploadState>,
  options: SendToRequestOptions,
): Promise<SentToRequest> {
  const { state, sealed } = kept
  checkResumedSize(source, state.size)
  if (sealed === undefined) {
    await cancelUnfinished(api, { kind: 'request', requestId: opened.id }, state.session.id)
    return sendToRequest(api, opened, source, options)
  }
  return transferToRequest(api, opened, source, options, {
    secret: fromBase64Url(state.secret),
    salt: fromBase64Url(state.salt),
    session: state.session,
    sealed,
  })
}

interface RequestSecrets {
  secret: Uint8Array
  salt: Uint8Array
  /** The session to continue, and the tags of the records sealed for it; none starts anew. */
  session?: UploadSession
  sealed?: Uint8Array
}

async function transferToRequest(
  api: ApiClient,
  opened: OpenedRequest,
  source: PayloadSource,
  options: SendToRequestOptions,
  { secret, salt, session, sealed }: RequestSecrets,
): Promise<SentToRequest> {
  const keys = await deriveUploadKeys(secret, salt)
  const meta = await encryptMetadata(keys.metaKey, options.metadata)
  // Loaded while the server is reachable: the finalize, which needs it, may follow a drop.
  await prepareUploadWrap()
  const size = encryptedSize(source.size)
  const upload = withCallerOptions(
    {
      target: {
        kind: 'request',
        requestId: opened.id,
        uploadToken: opened.uploadToken,
        salt: toBase64Url(salt),
        fileCount: options.fileCount,
        ...(options.senderNote === true ? { senderNote: true } : {}),
        finalizeBody: async (uploadId) => {
          const wrap = await wrapUploadSecret(opened.publicKey, opened.id, uploadId, secret)
          return {
            wrapEnc: toBase64Url(wrap.wrapEnc),
            wrapCiphertext: toBase64Url(wrap.wrapCiphertext),
            encryptedMeta: toBase64Url(meta.ciphertext),
            metaNonce: toBase64Url(meta.nonce),
          }
        },
      },
      size,
      ciphertext: ciphertextFrom(source, keys.fileKey, {
        cipher: options.cipher,
        sealed: sealedRecords(source, sealed, options.resume),
      }),
    },
    options,
    (named) => ({ ...uploadState(named, salt, size), secret: toBase64Url(secret) }),
  )
  return startOrResume(api, session, upload)
}

/**
 * Sends a note into the request: an upload of the UTF-8 text whose metadata has `kind: 'note'`
 * (one file `note.txt`, type `text/plain; charset=utf-8`); `withUpload` names the files upload
 * it goes with (its metadata's `with`).
 */
export async function sendNoteToRequest(
  api: ApiClient,
  opened: OpenedRequest,
  text: string,
  options: UploadCallbacks & RecordCipherOption & { withUpload?: string } = {},
): Promise<SentToRequest> {
  const bytes = utf8(text)
  const { withUpload, ...transfer } = options
  return sendToRequest(api, opened, bytesSource(bytes), {
    ...transfer,
    metadata: {
      archive: false,
      files: [{ ...REQUEST_NOTE_FILE, size: bytes.length }],
      kind: 'note',
      ...(withUpload === undefined ? {} : { with: withUpload }),
    },
    fileCount: 1,
    senderNote: withUpload !== undefined,
  })
}
