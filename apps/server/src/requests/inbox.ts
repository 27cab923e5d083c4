/**
 * The requester's inbox of a file request (spec: Inbox routes, Upload inside a request, Request
 * tokens): the listing, counted file downloads, deletion of a file or of the whole request,
 * closing, and the cleanup of uploads whose retention ended. Every route checks the inbox or
 * owner token under the lockout of `request:<id>`.
 * May touch: tables file_requests, request_uploads; the blob store through
 * records/counted-reads.ts and blob-janitor.ts.
 */
import {
  ERROR_MESSAGES,
  isUuid,
  toBase64Url,
  type InboxEntry,
  type InboxResponse,
} from '@fileshare/protocol'
import { and, asc, eq, gt, lt } from 'drizzle-orm'

import { deleteRows, type Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { BlobStore } from '../storage/blob-store.js'
import type { BlobJanitor, RetiredCount } from '../records/blob-janitor.js'
import { CountedReads, type DownloadResult, type GrantedRead } from '../records/counted-reads.js'
import { tokenUnderLockout, type Lockout } from '../limits/lockout.js'
import {
  findRequest,
  isRequestOpen,
  iso,
  requestNotFound,
  type RequestRow,
} from './request-records.js'
import { belongsTo, parseRequestToken } from './request-validation.js'
import type { Tombstones } from '../records/tombstones.js'
import { tokenMatches } from '../access/tokens.js'
import type { ChunkSessions } from '../sessions/chunk-sessions.js'
import type { UploadSessions } from '../sessions/upload-sessions.js'
import { endWaitingRequestUploads } from '../sessions/waiting-request-uploads.js'

export interface InboxDeps {
  db: Db
  blobs: BlobStore
  sessions: UploadSessions
  /** Chunked sessions in the database (PostgreSQL), ended with their request. */
  chunkSessions: ChunkSessions
  lockout: Lockout
  janitor: BlobJanitor
  tombstones: Tombstones
  /** How long a read grant lasts (DOWNLOAD_GRANT_TTL_SEC), in milliseconds. */
  grantTtlMs: number
  now: () => number
}

export class InboxService {
  private readonly reads: CountedReads

  constructor(private readonly deps: InboxDeps) {
    const { db, blobs, grantTtlMs, now } = deps
    this.reads = new CountedReads(
      { db, blobs, janitor: deps.janitor, grantTtlMs, now },
      { table: db.tables.requestUploads, name: 'inbox', holder: 'requestUploadId' },
    )
  }

  /** The requester's inbox (spec: GET /api/inbox/:id): files still downloadable, oldest first. */
  async read(id: string, inboxToken: string | undefined, clientIp: string): Promise<InboxResponse> {
    const row = await this.authorize(id, inboxToken, 'inbox', clientIp)
    const { requestUploads } = this.deps.db.tables
    const now = this.deps.now()
    const entries = await this.deps.db.query
      .select()
      .from(requestUploads)
      .where(
        and(
          eq(requestUploads.requestId, id),
          gt(requestUploads.expiresAt, now),
          lt(requestUploads.downloadCount, requestUploads.maxDownloads),
        ),
      )
      .orderBy(asc(requestUploads.createdAt), asc(requestUploads.id))
    return {
      vault: toBase64Url(row.vault),
      vaultNonce: toBase64Url(row.vaultNonce),
      brief: { ciphertext: toBase64Url(row.briefCiphertext), nonce: toBase64Url(row.briefNonce) },
      hasPassword: row.hasPassword,
      open: isRequestOpen(row, this.deps.now()),
      closesAt: iso(row.closesAt),
      createdAt: iso(row.createdAt),
      maxUploads: row.maxUploads,
      maxSize: row.maxSize,
      usedUploads: row.usedUploads,
      usedBytes: row.usedBytes,
      // Ours, only where slots are kept for notes: how many of `usedUploads` were such notes.
      ...(row.noteSlots > 0 ? { usedNotes: row.usedNotes } : {}),
      uploads: entries.map((entry): InboxEntry => ({
        id: entry.id,
        size: entry.size,
        fileCount: entry.fileCount,
        salt: toBase64Url(entry.salt),
        wrapEnc: toBase64Url(entry.wrapEnc),
        wrapCiphertext: toBase64Url(entry.wrapCiphertext),
        encryptedMeta: toBase64Url(entry.encryptedMeta),
        metaNonce: toBase64Url(entry.metaNonce),
        downloadCount: entry.downloadCount,
        maxDownloads: entry.maxDownloads,
        expiresAt: iso(entry.expiresAt),
        createdAt: iso(entry.createdAt),
      })),
    }
  }

  /**
   * Counts one download of an inbox file atomically (410 when used up or past its retention),
   * then opens the blob (spec: GET /api/inbox/:id/file/:uid); `withGrant` also issues a read grant
   * (docs/api.md, Read grants) and answers `range` with it.
   */
  async file(
    id: string,
    uploadId: string,
    inboxToken: string | undefined,
    clientIp: string,
    withGrant = false,
    range?: string,
  ): Promise<DownloadResult> {
    const entry = await this.entry(id, uploadId, inboxToken, clientIp)
    return this.reads.deliver(uploadId, entry, withGrant, range)
  }

  /** Reads an inbox file under a read grant (docs/api.md), uncounted; 410 past its retention. */
  async readGranted(
    id: string,
    uploadId: string,
    inboxToken: string | undefined,
    grant: string | undefined,
    range: string | undefined,
    clientIp: string,
  ): Promise<GrantedRead> {
    const entry = await this.entry(id, uploadId, inboxToken, clientIp)
    return this.reads.readGranted(uploadId, entry, grant, range)
  }

  /** A file of the inbox, after its inbox token; 404 when the inbox holds no such file. */
  private async entry(
    id: string,
    uploadId: string,
    inboxToken: string | undefined,
    clientIp: string,
  ) {
    await this.authorize(id, inboxToken, 'inbox', clientIp)
    const { db } = this.deps
    const { requestUploads } = db.tables
    const { size, fileCount, expiresAt } = requestUploads
    const [entry] = isUuid(uploadId)
      ? await db.query
          .select({ size, fileCount, expiresAt })
          .from(requestUploads)
          .where(and(eq(requestUploads.id, uploadId), eq(requestUploads.requestId, id)))
      : []
    if (!entry) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    return entry
  }

  /** Deletes one inbox file; its slot stays used (spec: DELETE /api/inbox/:id/file/:uid). */
  async deleteFile(
    id: string,
    uploadId: string,
    ownerToken: string | undefined,
    clientIp: string,
  ): Promise<void> {
    await this.authorize(id, ownerToken, 'owner', clientIp)
    const { db, janitor } = this.deps
    const { requestUploads } = db.tables
    const file = and(eq(requestUploads.id, uploadId), eq(requestUploads.requestId, id))
    if (!isUuid(uploadId) || (await deleteRows(db.query, requestUploads, file)) === 0) {
      throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
    await janitor.remove(uploadId)
  }

  /** Stops new uploads; running sessions finish (spec: POST /api/inbox/:id/close). */
  async close(id: string, ownerToken: string | undefined, clientIp: string): Promise<void> {
    await this.authorize(id, ownerToken, 'owner', clientIp)
    const { fileRequests } = this.deps.db.tables
    await this.deps.db.query
      .update(fileRequests)
      .set({ closed: true })
      .where(eq(fileRequests.id, id))
  }

  /**
   * Deletes the request and every upload in it (spec: DELETE /api/inbox/:id): sessions running or
   * waiting for a resume end, the records go in one transaction, then the blobs (the janitor
   * queues a removal that fails; the orphan sweep catches a crash in between).
   */
  async deleteRequest(id: string, ownerToken: string | undefined, clientIp: string): Promise<void> {
    await this.authorize(id, ownerToken, 'owner', clientIp)
    const { db, sessions, janitor } = this.deps
    const { fileRequests, requestUploads } = db.tables
    const running = [...sessions.ids()]
      .map((uploadId) => sessions.get(uploadId, belongsTo(id)))
      .filter((session) => session !== undefined)
    await Promise.all(running.map((session) => session.abort()))
    await endWaitingRequestUploads(this.deps, id)
    const removed = await db.transaction(async (tx) => {
      const uploads = await tx
        .delete(requestUploads)
        .where(eq(requestUploads.requestId, id))
        .returning({ id: requestUploads.id })
      await tx.delete(fileRequests).where(eq(fileRequests.id, id))
      return uploads
    })
    await janitor.removeAll(removed.map((upload) => upload.id))
  }

  /**
   * Cleanup: deletes uploads past their retention or downloads, records first, then their blobs
   * (counted-reads.ts). A used-up file stays while a read grant for it lasts; its grants go with it.
   */
  removeExpiredUploads(): Promise<RetiredCount> {
    const { requestUploads } = this.deps.db.tables
    return this.reads.retireFinished((tx, finished) =>
      tx
        .delete(requestUploads)
        .where(finished)
        .returning({ id: requestUploads.id, lastDownloadAt: requestUploads.lastDownloadAt }),
    )
  }

  /**
   * Checks an inbox credential (spec: Request tokens): 404 for an unknown id or a wrong token; with
   * a password, under the lockout of `request:<id>` for the caller's IP (429).
   */
  private async authorize(
    id: string,
    presented: string | undefined,
    kind: 'inbox' | 'owner',
    clientIp: string,
  ): Promise<RequestRow> {
    const token = parseRequestToken(presented)
    const row = await findRequest(this.deps.db, this.deps.tombstones, id)
    const stored = kind === 'inbox' ? row.inboxTokenHash : row.inboxOwnerTokenHash
    const guard = { key: `request:${id}`, clientIp, hasPassword: row.hasPassword }
    const checked = {
      matches: token !== null && tokenMatches(token, stored),
      wellFormed: token !== null,
    }
    if (!(await tokenUnderLockout(this.deps.lockout, guard, checked))) throw requestNotFound()
    return row
  }
}
