/** HTTP header names of the API and the header sets that carry a single credential. */

/**
 * Every header the spec names, and those of this project's extensions (`X-Resumable`, the read
 * grant's; docs/api.md). Keys drop the `X-` prefix; `X-Content-Length` (the declared size of a
 * chunked or WebSocket upload) is `declaredContentLength`, so it cannot be confused with the
 * standard `Content-Length` of a single-request upload.
 */
export const HEADERS = {
  authToken: 'X-Auth-Token',
  ownerToken: 'X-Owner-Token',
  salt: 'X-Salt',
  maxDownloads: 'X-Max-Downloads',
  expireSec: 'X-Expire-Sec',
  fileCount: 'X-File-Count',
  hasPassword: 'X-Has-Password',
  passwordSalt: 'X-Password-Salt',
  passwordAlgo: 'X-Password-Algo',
  declaredContentLength: 'X-Content-Length',
  /** Ours: `true` on a chunked init asks for an upload that survives a restart (docs/api.md). */
  resumable: 'X-Resumable',
  uploadToken: 'X-Upload-Token',
  inboxToken: 'X-Inbox-Token',
  inboxOwnerToken: 'X-Inbox-Owner-Token',
  rateLimitLimit: 'X-RateLimit-Limit',
  rateLimitRemaining: 'X-RateLimit-Remaining',
  rateLimitReset: 'X-RateLimit-Reset',
  retryAfter: 'Retry-After',
  contentLength: 'Content-Length',
  contentType: 'Content-Type',
  cacheControl: 'Cache-Control',
  authorization: 'Authorization',
  origin: 'Origin',
  readGrant: 'X-Read-Grant',
  readGrantExpires: 'X-Read-Grant-Expires',
  range: 'Range',
  contentRange: 'Content-Range',
  acceptRanges: 'Accept-Ranges',
  /** Ours: an upload into a request is a sender's note going with files (docs/api.md). */
  senderNote: 'X-Sender-Note',
} as const

export type HeaderName = (typeof HEADERS)[keyof typeof HEADERS]

/**
 * Every header name as a Node server receives it, in lower case: the names a server reads and
 * the keys its validation errors report a header under.
 */
export const RECEIVED_HEADERS = Object.fromEntries(
  Object.entries(HEADERS).map(([key, name]) => [key, name.toLowerCase()]),
) as { readonly [Key in keyof typeof HEADERS]: Lowercase<(typeof HEADERS)[Key]> }

/** Header values are strings; booleans are spelled exactly `true` or `false`. */
export type BooleanHeader = 'true' | 'false'

/** `X-Auth-Token`: download and password check of an upload. */
export interface AuthTokenHeaders {
  [HEADERS.authToken]: string
}

/** `X-Owner-Token`: finalize, metadata, delete. */
export interface OwnerTokenHeaders {
  [HEADERS.ownerToken]: string
}

/** `X-Upload-Token`: a sender reading a request or opening an upload into it. */
export interface UploadTokenHeaders {
  [HEADERS.uploadToken]: string
}

/** `X-Inbox-Token`: the requester listing the inbox or downloading from it. */
export interface InboxTokenHeaders {
  [HEADERS.inboxToken]: string
}

/** `X-Inbox-Owner-Token`: the requester deleting a file, closing or deleting a request. */
export interface InboxOwnerTokenHeaders {
  [HEADERS.inboxOwnerToken]: string
}

/** `Authorization: Bearer <session JWT>`, the command-line client's login (spec: Optional login). */
export interface BearerAuthHeaders {
  [HEADERS.authorization]: `Bearer ${string}`
}

/**
 * Rate-limit headers on `/api` responses, integers (spec: Limits). `X-RateLimit-Reset` is, by
 * this project's choice, the Unix time in seconds at which the window frees up again.
 */
export interface RateLimitHeaders {
  [HEADERS.rateLimitLimit]: string
  [HEADERS.rateLimitRemaining]: string
  [HEADERS.rateLimitReset]: string
}

/** Sent with a 429: whole seconds to wait (RFC 9110 §10.2.3 delay-seconds). */
export interface RetryAfterHeaders {
  [HEADERS.retryAfter]: string
}
