/**
 * The requester's inbox: open it with the inbox link (and its password, if any), which opens
 * the vault and every upload's wrapped key and metadata; download (whole or in ranges), delete,
 * close, delete all.
 */
import { fromBase64Url } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { deriveUploadKeys, type UploadKeys } from '../crypto/keys.js'
import { buildLink, type InboxLink } from '../crypto/link.js'
import { decryptMetadata, type FileMetadata } from '../crypto/metadata.js'
import { derivePasswordKey, protectSecret, wrongPassword } from '../crypto/password.js'
import {
  deriveInboxAccess,
  openBrief,
  openVault,
  unwrapUploadSecret,
  type RequestBrief,
} from '../crypto/request.js'
import { HEADERS } from '../wire/headers.js'
import type { InboxEntry, InboxResponse } from '../wire/inbox.js'
import { PATHS } from '../wire/routes.js'
import { isApiError } from './api-error.js'
import type { ApiClient } from './api.js'
import { openDownload, type DownloadOptions, type DownloadResult } from './download.js'
import { openCountedRanges, type FileRanges, type FileRangesOptions } from './download-ranges.js'
import type { CountedSource } from './granted-range.js'
import { requirePassword } from './password-lock.js'
import { requireServerId } from './server-id.js'

export interface InboxFile {
  id: string
  /** Encrypted size in bytes. */
  size: number
  fileCount: number
  metadata: FileMetadata
  downloadCount: number
  maxDownloads: number
  expiresAt: string
  createdAt: string
  /** The upload's keys, unwrapped from the sender's HPKE wrap. */
  keys: UploadKeys
}

export interface OpenedInbox {
  id: string
  brief: RequestBrief
  /** The request's upload link, recovered from the vault (to share it again). */
  uploadLink: string
  hasPassword: boolean
  open: boolean
  closesAt: string
  createdAt: string
  maxUploads: number
  /** Largest size of one upload. */
  maxSize: number
  usedUploads: number
  usedBytes: number
  /** Notes that went with files among `usedUploads`, when the request keeps slots for them. */
  usedNotes?: number
  /** Downloadable uploads, oldest first. */
  entries: InboxFile[]
  /** Ids of uploads whose key or metadata did not decrypt (a sender sent garbage). */
  unreadable: string[]
  /** `X-Inbox-Token`. */
  inboxToken: string
  /** `X-Inbox-Owner-Token`. */
  inboxOwnerToken: string
}

/**
 * `GET /api/inbox/:id`. A password-protected link needs its password (Argon2id with the salt in
 * the link); a wrong one shows as the server's 404 and throws ProtocolError('WRONG_PASSWORD'),
 * a lockout ApiError 429 with retryAfterSec.
 */
export async function openInbox(
  api: ApiClient,
  link: InboxLink,
  password?: string,
): Promise<OpenedInbox> {
  let inboxSecret = link.secret
  if (link.passwordSalt) {
    const key = await derivePasswordKey(requirePassword(password), link.passwordSalt)
    inboxSecret = protectSecret(link.secret, key)
  }
  const access = await deriveInboxAccess(inboxSecret)
  let answer: InboxResponse
  try {
    answer = await api.json<InboxResponse>('GET', PATHS.inbox(link.id), {
      headers: { [HEADERS.inboxToken]: access.inboxToken },
    })
  } catch (error) {
    // The server cannot tell a wrong password from a wrong token: both derive a token it refuses.
    if (link.passwordSalt && isApiError(error, 404)) throw wrongPassword()
    throw error
  }
  // Before anything else: clients name folders and files after these ids.
  for (const entry of answer.uploads) requireServerId(entry.id, 'inbox entry')
  const briefSealed = {
    ciphertext: fromBase64Url(answer.brief.ciphertext),
    nonce: fromBase64Url(answer.brief.nonce),
  }
  const vault = await openVault(
    inboxSecret,
    { ciphertext: fromBase64Url(answer.vault), nonce: fromBase64Url(answer.vaultNonce) },
    briefSealed,
  )
  const { brief } = await openBrief(vault.uploadSecret, briefSealed)
  const uploadLink = buildLink(api.baseUrl, {
    kind: 'request',
    id: link.id,
    secret: vault.uploadSecret,
  })
  const entries: InboxFile[] = []
  const unreadable: string[] = []
  const opened = await Promise.all(
    answer.uploads.map((entry) => openEntry(vault.keyPair, link.id, entry).catch(() => undefined)),
  )
  answer.uploads.forEach((entry, i) => {
    const file = opened[i]
    if (file) entries.push(file)
    else unreadable.push(entry.id)
  })
  return {
    id: link.id,
    brief,
    uploadLink,
    hasPassword: answer.hasPassword,
    open: answer.open,
    closesAt: answer.closesAt,
    createdAt: answer.createdAt,
    maxUploads: answer.maxUploads,
    maxSize: answer.maxSize,
    usedUploads: answer.usedUploads,
    usedBytes: answer.usedBytes,
    ...(typeof answer.usedNotes === 'number' ? { usedNotes: answer.usedNotes } : {}),
    entries,
    unreadable,
    inboxToken: access.inboxToken,
    inboxOwnerToken: access.inboxOwnerToken,
  }
}

/** Unwraps one upload's secret and decrypts its metadata; fails on anything a sender garbled. */
async function openEntry(
  keyPair: CryptoKeyPair,
  requestId: string,
  entry: InboxEntry,
): Promise<InboxFile> {
  const secret = await unwrapUploadSecret(keyPair, requestId, entry.id, {
    wrapEnc: fromBase64Url(entry.wrapEnc),
    wrapCiphertext: fromBase64Url(entry.wrapCiphertext),
  })
  const keys = await deriveUploadKeys(secret, fromBase64Url(entry.salt))
  secret.fill(0)
  const metadata = await decryptMetadata(keys.metaKey, {
    ciphertext: fromBase64Url(entry.encryptedMeta),
    nonce: fromBase64Url(entry.metaNonce),
  })
  return {
    id: entry.id,
    size: entry.size,
    fileCount: entry.fileCount,
    metadata,
    downloadCount: entry.downloadCount,
    maxDownloads: entry.maxDownloads,
    expiresAt: entry.expiresAt,
    createdAt: entry.createdAt,
    keys,
  }
}

/** Counts one download of an inbox upload and returns the decrypting stream (S3 too). */
export async function downloadInboxFile(
  api: ApiClient,
  inbox: OpenedInbox,
  entryId: string,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const { entry, source } = inboxSource(inbox, entryId)
  const init: { headers: Record<string, string>; signal?: AbortSignal } = { headers: source.auth }
  if (options.signal) init.signal = options.signal
  const response = await api.raw('GET', source.path, init)
  return openDownload(api, response, entry.keys.fileKey, options)
}

/**
 * Counts one download of an inbox upload with a read grant and reads its plaintext in ranges, as
 * `openFileRanges` does for an upload (docs/api.md, Read grants; on S3 the presigned URL).
 */
export function openInboxFileRanges(
  api: ApiClient,
  inbox: Pick<OpenedInbox, 'id' | 'inboxToken' | 'entries'>,
  entryId: string,
  options: FileRangesOptions = {},
): Promise<FileRanges> {
  const { entry, source } = inboxSource(inbox, entryId)
  return openCountedRanges(api, source, entry.keys.fileKey, options)
}

/** A readable entry of the inbox and where its counted download is, under the inbox token. */
function inboxSource(
  inbox: Pick<OpenedInbox, 'id' | 'inboxToken' | 'entries'>,
  entryId: string,
): { entry: InboxFile; source: CountedSource } {
  const entry = inbox.entries.find((e) => e.id === entryId)
  if (!entry) throw new ProtocolError('BAD_INPUT', 'No readable upload with this id in the inbox')
  const auth = { [HEADERS.inboxToken]: inbox.inboxToken }
  return { entry, source: { path: PATHS.inboxFile(inbox.id, entryId), auth } }
}

function ownerHeaders(inbox: Pick<OpenedInbox, 'inboxOwnerToken'>): Record<string, string> {
  return { [HEADERS.inboxOwnerToken]: inbox.inboxOwnerToken }
}

/** `DELETE /api/inbox/:id/file/:uid`: the slot stays used. */
export async function deleteInboxFile(
  api: ApiClient,
  inbox: Pick<OpenedInbox, 'id' | 'inboxOwnerToken'>,
  entryId: string,
): Promise<void> {
  await api.json('DELETE', PATHS.inboxFile(inbox.id, entryId), { headers: ownerHeaders(inbox) })
}

/** `POST /api/inbox/:id/close`: no new uploads; idempotent. */
export async function closeInbox(
  api: ApiClient,
  inbox: Pick<OpenedInbox, 'id' | 'inboxOwnerToken'>,
): Promise<void> {
  await api.json('POST', PATHS.inboxClose(inbox.id), { headers: ownerHeaders(inbox) })
}

/** `DELETE /api/inbox/:id`: the request and every upload in it. */
export async function deleteInbox(
  api: ApiClient,
  inbox: Pick<OpenedInbox, 'id' | 'inboxOwnerToken'>,
): Promise<void> {
  await api.json('DELETE', PATHS.inbox(inbox.id), { headers: ownerHeaders(inbox) })
}
