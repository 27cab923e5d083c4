/** The requester's inbox of a file request: listing, downloads and management (spec: Inbox routes). */
import type { CanonicalBase64Url, IsoTimestamp, OkResponse, Uuid } from './common.js'
import type { InboxOwnerTokenHeaders, InboxTokenHeaders } from './headers.js'
import type { FileRequestBrief } from './requests.js'
import type { DownloadStreamHeaders, PresignedDownloadResponse } from './uploads.js'

/** One upload inside a request, as the inbox lists it (spec: Upload inside a request). */
export interface InboxEntry {
  id: Uuid
  /** Bytes of the encrypted payload. */
  size: number
  fileCount: number
  /** 32 bytes. */
  salt: CanonicalBase64Url
  /** 65 bytes. */
  wrapEnc: CanonicalBase64Url
  /** 48 bytes. */
  wrapCiphertext: CanonicalBase64Url
  /** 17 to 75000 bytes. */
  encryptedMeta: CanonicalBase64Url
  /** 12 bytes. */
  metaNonce: CanonicalBase64Url
  downloadCount: number
  maxDownloads: number
  expiresAt: IsoTimestamp
  createdAt: IsoTimestamp
}

/** Headers of `GET /api/inbox/:id` and `GET /api/inbox/:id/file/:uid`. */
export type InboxHeaders = InboxTokenHeaders

/** 200 of `GET /api/inbox/:id`; reading it never counts as a download. */
export interface InboxResponse {
  /** 146 bytes. */
  vault: CanonicalBase64Url
  /** 12 bytes. */
  vaultNonce: CanonicalBase64Url
  brief: FileRequestBrief
  hasPassword: boolean
  open: boolean
  closesAt: IsoTimestamp
  createdAt: IsoTimestamp
  maxUploads: number
  /** Largest size of one upload in bytes. */
  maxSize: number
  /** Finished uploads, deleted ones included. */
  usedUploads: number
  /** Bytes of finished uploads, deleted ones included. */
  usedBytes: number
  /**
   * Ours, only for a request created with `senderNotes`: the finished uploads among `usedUploads`
   * that were notes going with files.
   */
  usedNotes?: number
  /** Only the uploads still downloadable. */
  uploads: readonly InboxEntry[]
}

/**
 * Response headers of `GET /api/inbox/:id/file/:uid` on the filesystem backend; by this
 * project's choice the same as those of `GET /api/download/:id`.
 */
export type InboxFileStreamHeaders = DownloadStreamHeaders

/** 200 of `GET /api/inbox/:id/file/:uid` on the S3 backend. */
export type InboxFilePresignedResponse = PresignedDownloadResponse

/** Headers of the management routes: delete a file, close, delete the request. */
export type InboxManagementHeaders = InboxOwnerTokenHeaders

/** 200 of every management route. */
export type InboxManagementResponse = OkResponse
