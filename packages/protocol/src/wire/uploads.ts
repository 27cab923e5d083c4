/**
 * File uploads on all three transports (single request, chunked HTTP, WebSocket), and the routes
 * that read, download, check and delete them (spec: Endpoints, POST /api/upload to DELETE
 * /api/upload/:id). WebSocket frames live in ws-frames.ts.
 */
import type {
  Base64,
  Base64Url,
  IdResponse,
  IsoTimestamp,
  OkResponse,
  PasswordAlgo,
  Uuid,
} from './common.js'
import { HEADERS, type AuthTokenHeaders, type OwnerTokenHeaders } from './headers.js'

/** The settings headers shared by `POST /api/upload` and `POST /api/upload/init`. */
export interface UploadSettingsHeaders {
  [HEADERS.authToken]: Base64Url
  [HEADERS.ownerToken]: Base64Url
  /** Decodes to 16 or 32 bytes. */
  [HEADERS.salt]: Base64Url
  /** Integer, one of `FILE_DOWNLOAD_OPTIONS`. */
  [HEADERS.maxDownloads]: string
  /** Integer seconds, one of `FILE_EXPIRE_OPTIONS_SEC`. */
  [HEADERS.expireSec]: string
  /** Integer from 1 to `FILE_MAX_FILES_PER_UPLOAD`; more than 1 is an archive. */
  [HEADERS.fileCount]: string
}

/** Password headers: salt (16 bytes) and algorithm are required when `X-Has-Password` is `true`. */
export type UploadPasswordHeaders =
  | {
      [HEADERS.hasPassword]: 'true'
      [HEADERS.passwordSalt]: Base64Url
      [HEADERS.passwordAlgo]: PasswordAlgo
    }
  | { [HEADERS.hasPassword]: 'false' }

/** Headers of `POST /api/upload`; `Content-Length` is the exact payload size. */
export type UploadHeaders = UploadSettingsHeaders &
  UploadPasswordHeaders & { [HEADERS.contentLength]: string }

/** Headers of `POST /api/upload/init`; `X-Content-Length` is the size of the whole payload. */
export type UploadInitHeaders = UploadSettingsHeaders &
  UploadPasswordHeaders & { [HEADERS.declaredContentLength]: string }

/** 200 of `POST /api/upload` and of finalize: the id and the share URL without its fragment. */
export interface UploadResponse {
  id: Uuid
  url: string
}

/** 201 of `POST /api/upload/init`. */
export type UploadInitResponse = IdResponse

/** The query parameter of a chunk request: the chunk's index, an integer >= 0. */
export const CHUNK_INDEX_PARAM = 'index'

/** Query of `POST /api/upload/:id/chunk` and of its request-upload twin. */
export interface ChunkQuery {
  [CHUNK_INDEX_PARAM]: string
}

/**
 * 200 of a chunk request. `bytesWritten` is, by this project's choice, the number of bytes of
 * the upload written to storage so far (chunks still buffered out of order do not count).
 */
export interface ChunkResponse {
  bytesWritten: number
}

/** How an unfinished upload sends its bytes: one WebSocket, or chunk requests. */
export const UPLOAD_STATUS_TRANSPORTS = ['ws', 'chunks'] as const
export type UploadStatusTransport = (typeof UPLOAD_STATUS_TRANSPORTS)[number]

/** Headers of `GET /api/upload/:id/status` (ours, docs/api.md). */
export type UploadStatusHeaders = OwnerTokenHeaders

/**
 * 200 of `GET /api/upload/:id/status` and `GET /api/request/:id/upload/:uid/status` (ours,
 * docs/api.md): how far an unfinished upload got. `bytesWritten` counts the bytes the server made
 * durable, contiguous from byte 0; `nextIndex` is the lowest chunk index not durably stored for
 * `chunks`, `null` for `ws`; `declaredSize` is the session's declared length.
 */
export interface UploadStatusResponse {
  bytesWritten: number
  nextIndex: number | null
  declaredSize: number
  transport: UploadStatusTransport
}

/** Headers of `POST /api/upload/:id/finalize`. */
export type FinalizeUploadHeaders = OwnerTokenHeaders

/** 200 of `POST /api/upload/:id/finalize`. */
export type FinalizeUploadResponse = UploadResponse

/** Headers of `POST /api/meta/:id`. */
export type SaveMetaHeaders = OwnerTokenHeaders

/** Body of `POST /api/meta/:id`: both fields non-empty base64; metadata is set once. */
export interface SaveMetaBody {
  encryptedMeta: Base64
  nonce: Base64
}

/** 200 of `POST /api/meta/:id`. */
export type SaveMetaResponse = OkResponse

/** The sealed names, types and sizes of an upload; both null until `POST /api/meta/:id`. */
export interface UploadMetaFields {
  encryptedMeta: Base64 | null
  nonce: Base64 | null
}

/** What `GET /api/info/:id` says of every upload. */
interface UploadInfoCommon {
  id: Uuid
  /** Bytes of the encrypted payload. */
  size: number
  /** base64url, 16 or 32 bytes. */
  salt: Base64Url
  fileCount: number
  maxDownloads: number
  downloadCount: number
  expiresAt: IsoTimestamp
  createdAt: IsoTimestamp
}

/**
 * 200 of `GET /api/info/:id`. The spec requires size, salt and hasPassword; the other fields are
 * this project's choice: everything a client shows before a download is counted. The metadata
 * is here only without a password: under a password it would let anyone with the link test
 * guesses offline, so it comes from `POST /api/password/:id` once the auth token is proven.
 */
export type UploadInfoResponse = UploadInfoCommon &
  (
    | ({ hasPassword: false } & UploadMetaFields)
    | {
        hasPassword: true
        passwordSalt: Base64Url
        passwordAlgo: PasswordAlgo
        encryptedMeta?: never
        nonce?: never
      }
  )

/** 200 of `GET /api/exists/:id`; this body is this project's choice. */
export interface ExistsResponse {
  exists: boolean
}

/** Headers of `GET /api/download/:id`. */
export type DownloadHeaders = AuthTokenHeaders

/** `Content-Type` of a streamed download. */
export const DOWNLOAD_CONTENT_TYPE = 'application/octet-stream'

/** `Cache-Control` of a streamed download. */
export const DOWNLOAD_CACHE_CONTROL = 'no-store'

/** Response headers of a streamed download (filesystem backend, and inbox downloads). */
export interface DownloadStreamHeaders {
  [HEADERS.contentType]: typeof DOWNLOAD_CONTENT_TYPE
  [HEADERS.contentLength]: string
  [HEADERS.cacheControl]: typeof DOWNLOAD_CACHE_CONTROL
  [HEADERS.fileCount]: string
}

/**
 * The read grant, this project's extension of `GET /api/download/:id` (docs/api.md, Read grants):
 * a client sends `X-Read-Grant: request` with the counted download, and the filesystem backend's
 * 200 then carries a fresh grant token and its expiry (milliseconds since the epoch). The same
 * header with that token, beside `X-Auth-Token`, reads ranges of the same upload without counting.
 */
export const READ_GRANT_REQUEST = 'request'

/** Request headers of a counted download that asks for a read grant. */
export type ReadGrantRequestHeaders = AuthTokenHeaders & {
  [HEADERS.readGrant]: typeof READ_GRANT_REQUEST
}

/** Extra response headers of the counted download that was granted. */
export interface ReadGrantResponseHeaders {
  [HEADERS.readGrant]: string
  [HEADERS.readGrantExpires]: string
}

/** Request headers of a ranged read under a grant; without `Range` the whole blob comes (200). */
export type GrantedReadHeaders = AuthTokenHeaders & {
  [HEADERS.readGrant]: string
  [HEADERS.range]?: `bytes=${number}-${number | ''}`
}

/** Response headers of a 206 under a grant. */
export interface PartialContentHeaders {
  [HEADERS.contentType]: typeof DOWNLOAD_CONTENT_TYPE
  [HEADERS.contentLength]: string
  [HEADERS.contentRange]: `bytes ${number}-${number}/${number}`
  [HEADERS.acceptRanges]: 'bytes'
  [HEADERS.cacheControl]: typeof DOWNLOAD_CACHE_CONTROL
  [HEADERS.fileCount]: string
}

/**
 * One byte range of a blob of `size` bytes from a `Range` header (RFC 9110 §14.1.2), strictly:
 * a single `bytes=first-last` or `bytes=first-` with canonical digits, within the blob; null for
 * anything else (the server answers 416). `end` is exclusive.
 */
export function parseByteRange(
  header: string,
  size: number,
): { start: number; end: number } | null {
  const match = /^bytes=(0|[1-9][0-9]{0,15})-(0|[1-9][0-9]{0,15})?$/.exec(header)
  if (match === null) return null
  const start = Number(match[1])
  const last = match[2] === undefined ? size - 1 : Math.min(Number(match[2]), size - 1)
  if (start >= size || last < start) return null
  return { start, end: last + 1 }
}

/** 200 of a download on the S3 backend: a presigned URL instead of the stream. */
export interface PresignedDownloadResponse {
  url: string
  size: number
  fileCount: number
}

/**
 * Headers of `POST /api/password/:id` (empty body); this project's choice. Failures: 400 not
 * password-protected, 401 wrong token, 404, 410, 429 lockout, as on the note route.
 */
export type PasswordCheckHeaders = AuthTokenHeaders

/**
 * 200 of `POST /api/password/:id`; this body is this project's choice: the upload's metadata,
 * which `GET /api/info/:id` withholds from password-protected uploads.
 */
export type PasswordCheckResponse = OkResponse & UploadMetaFields

/** Headers of `DELETE /api/upload/:id`. */
export type DeleteUploadHeaders = OwnerTokenHeaders

/** 200 of `DELETE /api/upload/:id`. */
export type DeleteUploadResponse = OkResponse
