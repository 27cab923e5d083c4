/**
 * File requests from the sender's side: creation, the daily limit, reading a request, and
 * uploading into it over chunked HTTP (spec: POST /api/request to the request upload routes).
 * Every binary field here is canonical unpadded base64url of an exact length.
 */
import type { CanonicalBase64Url, IdResponse, IsoTimestamp, OkResponse, Uuid } from './common.js'
import { HEADERS, type BooleanHeader, type UploadTokenHeaders } from './headers.js'
import type { ChunkResponse } from './uploads.js'

/** The encrypted brief: `ciphertext` 1040 to 8208 bytes (1024·n + 16), `nonce` 12 bytes. */
export interface FileRequestBrief {
  ciphertext: CanonicalBase64Url
  nonce: CanonicalBase64Url
}

/** Body of `POST /api/request`; at most 16 KB, unknown fields refused. */
export interface CreateFileRequestBody {
  /** 146 bytes. */
  vault: CanonicalBase64Url
  /** 12 bytes. */
  vaultNonce: CanonicalBase64Url
  /** 32 bytes. */
  inboxAuthToken: CanonicalBase64Url
  /** 32 bytes. */
  inboxOwnerToken: CanonicalBase64Url
  /** 32 bytes. */
  uploadToken: CanonicalBase64Url
  brief: FileRequestBrief
  /** One of `FILE_REQUEST_EXPIRE_OPTIONS_SEC`. */
  expireSec: number
  /** One of `FILE_REQUEST_UPLOAD_OPTIONS`, or twice one of them. */
  maxUploads: number
  /** Largest size of one upload in bytes, at most `FILE_REQUEST_MAX_SIZE`. */
  maxSize: number
  /** Downloads allowed per upload, one of `FILE_REQUEST_DOWNLOAD_OPTIONS`. */
  downloads: number
  /** Must be true when `FORCE_REQUEST_PASSWORD` is on. */
  hasPassword: boolean
  /** Ours, optional: an address mailed once per finished upload (the server learns it). */
  notifyEmail?: string
  /** Ours, optional: an https URL sent a signed JSON POST once per finished upload. */
  notifyWebhook?: string
  /**
   * Ours, optional: with true, `maxUploads` is twice an option and half of the slots are kept
   * for senders' notes that go with files (`X-Sender-Note`), so files cannot take them.
   */
  senderNotes?: boolean
}

const CREATE_FILE_REQUEST_KEYS = {
  vault: true,
  vaultNonce: true,
  inboxAuthToken: true,
  inboxOwnerToken: true,
  uploadToken: true,
  brief: true,
  expireSec: true,
  maxUploads: true,
  maxSize: true,
  downloads: true,
  hasPassword: true,
  notifyEmail: true,
  notifyWebhook: true,
  senderNotes: true,
} satisfies Record<keyof CreateFileRequestBody, true>

const FILE_REQUEST_BRIEF_KEYS = {
  ciphertext: true,
  nonce: true,
} satisfies Record<keyof FileRequestBrief, true>

/** Every field `POST /api/request` accepts; any other field is refused (spec: POST /api/request). */
export const CREATE_FILE_REQUEST_FIELDS: readonly (keyof CreateFileRequestBody)[] = Object.freeze(
  Object.keys(CREATE_FILE_REQUEST_KEYS) as (keyof CreateFileRequestBody)[],
)

/** Every field of `brief`; the unknown-field rule of the creation body applies inside it too. */
export const FILE_REQUEST_BRIEF_FIELDS: readonly (keyof FileRequestBrief)[] = Object.freeze(
  Object.keys(FILE_REQUEST_BRIEF_KEYS) as (keyof FileRequestBrief)[],
)

/** 201 of `POST /api/request`. */
export interface CreateFileRequestResponse {
  id: Uuid
  closesAt: IsoTimestamp
  /**
   * Ours, only with `notifyWebhook`: the key of the webhook's `X-Fileshare-Signature`
   * (HMAC-SHA256 of the body, `sha256=<hex>`), given this once.
   */
  notifyWebhookSecret?: CanonicalBase64Url
}

/** The JSON body of a webhook notification: no file name, no link secret. */
export interface RequestNotification {
  requestId: Uuid
  /** When the upload finished. */
  time: IsoTimestamp
  /** The encrypted size, coarsely: one of NOTIFICATION_SIZE_CLASSES. */
  sizeClass: NotificationSizeClass
}

/** The size classes of a notification, smallest first; MB and GB are powers of 1000. */
export const NOTIFICATION_SIZE_CLASSES = ['<1 MB', '<100 MB', '<1 GB', '>=1 GB'] as const
export type NotificationSizeClass = (typeof NOTIFICATION_SIZE_CLASSES)[number]

/** The size class of an upload of `size` encrypted bytes. */
export function notificationSizeClass(size: number): NotificationSizeClass {
  if (size < 1e6) return '<1 MB'
  if (size < 1e8) return '<100 MB'
  if (size < 1e9) return '<1 GB'
  return '>=1 GB'
}

/** The header carrying a webhook's signature, `sha256=<hex>`. */
export const NOTIFICATION_SIGNATURE_HEADER = 'X-Fileshare-Signature'

/**
 * 200 of `GET /api/request/limit`. With `FILE_REQUEST_DAILY_LIMIT` 0 there is no limit and both
 * other fields are null; otherwise `resetsAt` is set only when `remaining` is 0.
 */
export type FileRequestLimitResponse =
  | { dailyLimit: 0; remaining: null; resetsAt: null }
  | { dailyLimit: number; remaining: number; resetsAt: IsoTimestamp | null }

/** Headers of `GET /api/request/:id`; a missing or wrong token answers 404. */
export type ReadFileRequestHeaders = UploadTokenHeaders

/**
 * 200 of `GET /api/request/:id`. A closed or expired request answers `open` false with
 * `uploadsLeft` and `maxUploadSize` at 0.
 */
export interface FileRequestResponse {
  brief: FileRequestBrief
  open: boolean
  closesAt: IsoTimestamp
  uploadsLeft: number
  /** The smaller of `FILE_MAX_SIZE` and the request's `maxSize`. */
  maxUploadSize: number
  maxFilesPerUpload: number
  /**
   * Ours, only for a request created with `senderNotes`: its note slots left; `uploadsLeft` then
   * counts the other slots, one per submission.
   */
  notesLeft?: number
}

/** Headers of `POST /api/request/:id/upload/init` (empty body). */
export interface RequestUploadInitHeaders {
  /** 32 bytes. */
  [HEADERS.uploadToken]: CanonicalBase64Url
  /** 32 bytes. */
  [HEADERS.salt]: CanonicalBase64Url
  /** Encrypted size, at most `FILE_MAX_SIZE` and the request's `maxSize`. */
  [HEADERS.declaredContentLength]: string
  /** At most `FILE_MAX_FILES_PER_UPLOAD`; 1 when absent. */
  [HEADERS.fileCount]?: string
  /** Ours: `true` for a sender's note that goes with files (a note's slot when there are some). */
  [HEADERS.senderNote]?: BooleanHeader
}

/** 201 of `POST /api/request/:id/upload/init`: the upload id, its slot reserved. */
export type RequestUploadInitResponse = IdResponse

/** 200 of `POST /api/request/:id/upload/:uid/chunk?index=N`. */
export type RequestUploadChunkResponse = ChunkResponse

/** 200 of `DELETE /api/request/:id/upload/:uid`: the upload is cancelled and its slot freed. */
export type CancelRequestUploadResponse = OkResponse

/** Body of `POST /api/request/:id/upload/:uid/finalize`; at most 128 KB. */
export interface RequestUploadFinalizeBody {
  /** 65 bytes: the HPKE encapsulated key. */
  wrapEnc: CanonicalBase64Url
  /** 48 bytes: the upload secret wrapped to the requester's key. */
  wrapCiphertext: CanonicalBase64Url
  /** 17 to 75000 bytes. */
  encryptedMeta: CanonicalBase64Url
  /** 12 bytes. */
  metaNonce: CanonicalBase64Url
}

const REQUEST_UPLOAD_FINALIZE_KEYS = {
  wrapEnc: true,
  wrapCiphertext: true,
  encryptedMeta: true,
  metaNonce: true,
} satisfies Record<keyof RequestUploadFinalizeBody, true>

/**
 * Every field of a request upload's finalize body (HTTP) and `finalize` frame (WebSocket, beside
 * `type`); like the creation body, by this project's choice any other field is refused.
 */
export const REQUEST_UPLOAD_FINALIZE_FIELDS: readonly (keyof RequestUploadFinalizeBody)[] =
  Object.freeze(Object.keys(REQUEST_UPLOAD_FINALIZE_KEYS) as (keyof RequestUploadFinalizeBody)[])

/** 200 of `POST /api/request/:id/upload/:uid/finalize`. */
export type RequestUploadFinalizeResponse = IdResponse
