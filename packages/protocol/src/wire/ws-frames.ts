/**
 * Frames and close codes of the upload WebSockets `/api/upload/ws` and
 * `/api/request/:id/upload/ws` (spec: WebSocket /api/upload/ws, Uploading into a request).
 * Control frames are text JSON; the ciphertext travels in binary frames between them.
 */
import type { Base64Url, CanonicalBase64Url, PasswordAlgo, Uuid } from './common.js'

/** Close codes the server uses (RFC 6455 §7.4.1) and the causes the spec gives them. */
export const WS_CLOSE_CODES = {
  /** The upload is stored (after `done`). */
  normal: 1000,
  /** Protocol violation, for example a binary frame after `finalize`. */
  protocolError: 1002,
  /** Unsupported data type, for example a control frame that is not JSON. */
  unsupportedData: 1003,
  /** Header validation, size mismatch or quota violation. */
  policyViolation: 1008,
  /** The receive buffer exceeded `FILE_UPLOAD_WS_MAX_BUFFER`. */
  messageTooBig: 1009,
  /** Internal server error. */
  internalError: 1011,
} as const

export type WsCloseCode = (typeof WS_CLOSE_CODES)[keyof typeof WS_CLOSE_CODES]

/** Password entries of the `init` headers: present exactly when `hasPassword` is `true`. */
export type UploadWsPasswordHeaders =
  | { hasPassword: 'true'; passwordSalt: Base64Url; passwordAlgo: PasswordAlgo }
  | { hasPassword: 'false' }

/**
 * The `headers` of a normal `init` frame: the values of the `POST /api/upload/init` headers, all
 * strings, validated the same way, plus the quota check.
 */
export type UploadWsInitHeaders = {
  authToken: Base64Url
  ownerToken: Base64Url
  salt: Base64Url
  maxDownloads: string
  expireSec: string
  fileCount: string
  /** Exact size of the whole encrypted payload. */
  contentLength: string
} & UploadWsPasswordHeaders

/**
 * Ours (docs/api.md, Resuming uploads): `true` in an `init` frame asks for a session that a lost
 * connection or a restart keeps for a resume. Without it the session ends with its socket, as
 * the spec says.
 */
export interface UploadWsResumableField {
  resumable?: boolean
}

/** Client → server, first frame of a normal upload. */
export interface UploadWsInitFrame extends UploadWsResumableField {
  type: 'init'
  headers: UploadWsInitHeaders
}

/** Client → server, after the last binary frame. */
export interface UploadWsFinalizeFrame {
  type: 'finalize'
}

/** Server → client: the session is open; binary frames may follow. */
export interface UploadWsReadyFrame {
  type: 'ready'
  id: Uuid
}

/** Server → client: the upload is stored; the server then closes with 1000. */
export interface UploadWsDoneFrame {
  type: 'done'
  id: Uuid
}

/**
 * Server → client, then a close with a non-1000 code. `status` (the HTTP status of the same
 * refusal) is this project's addition on normal uploads; clients must not depend on it there.
 */
export interface UploadWsErrorFrame {
  type: 'error'
  message: string
  status?: number
}

export type UploadWsClientFrame = UploadWsInitFrame | UploadWsFinalizeFrame
export type UploadWsServerFrame = UploadWsReadyFrame | UploadWsDoneFrame | UploadWsErrorFrame

/** The `request` of a request upload's `init` frame; the upload token authenticates it. */
export interface RequestUploadWsInit {
  /** 32 bytes. */
  uploadToken: CanonicalBase64Url
  /** 32 bytes. */
  salt: CanonicalBase64Url
  /** Exact size of the whole encrypted payload. */
  contentLength: number
  fileCount: number
  /** Ours: as the `X-Sender-Note` header, a sender's note that goes with files. */
  senderNote?: boolean
}

/** Client → server, first frame of an upload into a request. */
export interface RequestUploadWsInitFrame extends UploadWsResumableField {
  type: 'init'
  request: RequestUploadWsInit
}

/** Client → server, after the last binary frame; sizes as for the HTTP finalize body. */
export interface RequestUploadWsFinalizeFrame {
  type: 'finalize'
  /** 65 bytes. */
  wrapEnc: CanonicalBase64Url
  /** 48 bytes. */
  wrapCiphertext: CanonicalBase64Url
  /** 17 to 75000 bytes. */
  encryptedMeta: CanonicalBase64Url
  /** 12 bytes. */
  metaNonce: CanonicalBase64Url
}

/** Server → client refusal: `status` equals the HTTP status of the same refusal (404, 409, …). */
export interface RequestUploadWsErrorFrame {
  type: 'error'
  message: string
  status: number
}

export type RequestUploadWsClientFrame = RequestUploadWsInitFrame | RequestUploadWsFinalizeFrame
export type RequestUploadWsServerFrame =
  UploadWsReadyFrame | UploadWsDoneFrame | RequestUploadWsErrorFrame
