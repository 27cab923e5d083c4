/**
 * File requests and their inbox (spec: File request record, Upload inside a request, the "File
 * request" and "Upload slot inside a request" state tables, Request tokens): creation under the
 * daily limit, the sender's view, uploads into a request on the shared session layer, and the
 * requester's inbox with its lockout. Both transports (HTTP routes, request upload socket) use it.
 *
 * A slot is one of `maxUploads`; it is free, reserved (a session runs) or used (an upload
 * finished; deleting the file keeps it used). Reserved and used slots are counters on the
 * request row, so reserving a slot and checking the size is one conditional UPDATE and no number
 * of concurrent inits can take more slots than there are.
 */
import { randomUUID } from 'node:crypto'

import {
  ERROR_MESSAGES,
  REQUEST_CHUNK_MAX_BYTES,
  REQUEST_HTTP_SESSION_TIMEOUT_MS,
  isUuid,
  toBase64Url,
  type FileRequestLimitResponse,
  type FileRequestResponse,
  type InboxEntry,
  type InboxResponse,
} from '@fileshare/protocol'
import { and, asc, eq, gt, gte, lt, lte, notExists, or, sql } from 'drizzle-orm'

import type { Config } from '../config.js'
import type { Db } from '../db/client.js'
import { decrement, decrementToZero, increment } from '../db/expressions.js'
import { fileRequests, requestDailyCounts, requestUploads } from '../db/schema.js'
import { HttpError } from '../http-error.js'
import type { BlobDelivery, BlobStore } from '../storage/blob-store.js'
import type { BlobJanitor, RetiredCount } from './blob-janitor.js'
import { tokenUnderLockout, type Lockout } from './limits/lockout.js'
import type { DailyIpHash, QuotaReservation, UploadQuota } from './limits/quota.js'
import {
  parseCreateBody,
  parseFinalizeBody,
  parseRequestToken,
  parseUploadInitValues,
  type RequestUploadFinalize,
  type RequestUploadInit,
  type RequestUploadInitValues,
} from './request-validation.js'
import { tokenMatches } from './tokens.js'
import type { UploadSession, UploadSessions } from './upload-sessions.js'
import { DownloadCounter } from './download-counter.js'

export type { RequestUploadFinalize, RequestUploadInit } from './request-validation.js'

/** Who creates a request: the daily limit counts per login user when there is one, else per IP. */
export interface RequestClient {
  ip: string
  /** The OIDC `sub` of the caller's login, or null without one. */
  user: string | null
}

/** The context of a session uploading into a request (normal uploads carry `kind: 'file'`). */
export interface RequestUploadContext {
  kind: 'request'
  requestId: string
  init: RequestUploadInit
  clientIp: string
  /** The declared size held against the sender's quota until the session ends. */
  reservation: QuotaReservation
}

export function isRequestUploadContext(context: unknown): context is RequestUploadContext {
  return (context as RequestUploadContext | undefined)?.kind === 'request'
}

export interface RequestsDeps {
  config: Config
  db: Db
  blobs: BlobStore
  sessions: UploadSessions
  quota: UploadQuota
  lockout: Lockout
  janitor: BlobJanitor
  ipHash: DailyIpHash
  /** Milliseconds since the epoch. */
  now: () => number
}

export interface InboxDownload {
  size: number
  fileCount: number
  delivery: BlobDelivery
}

type RequestRow = typeof fileRequests.$inferSelect
type InboxTokenKind = 'inbox' | 'owner'

const DAY_MS = 86_400_000

const TOKEN_HEADERS: Record<InboxTokenKind, string> = {
  inbox: 'x-inbox-token',
  owner: 'x-inbox-owner-token',
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function notFound(): HttpError {
  return new HttpError(404, ERROR_MESSAGES.requestNotFound)
}

export class RequestsService {
  private readonly counter: DownloadCounter

  constructor(private readonly deps: RequestsDeps) {
    this.counter = new DownloadCounter(deps.db, requestUploads, deps.blobs)
  }

  /**
   * Creates a request (spec: POST /api/request): 400 for an invalid body, 429 when the caller's
   * FILE_REQUEST_DAILY_LIMIT is used up. The count and the record are written in one
   * transaction, so a refused or failed creation counts nothing.
   */
  create(body: unknown, client: RequestClient): { id: string; closesAt: string } {
    const { config, db } = this.deps
    const fields = parseCreateBody(body, config)
    const now = this.deps.now()
    const id = randomUUID()
    const closesAt = now + fields.expireSec * 1000
    const limit = config.fileRequestDailyLimit
    db.transaction((tx) => {
      if (limit > 0) {
        const day = dayStart(now)
        const counted = tx
          .insert(requestDailyCounts)
          .values({ clientKey: this.clientKey(client, day), dayStart: day, count: 1 })
          .onConflictDoUpdate({
            target: [requestDailyCounts.clientKey, requestDailyCounts.dayStart],
            set: { count: increment(requestDailyCounts.count) },
            setWhere: lt(requestDailyCounts.count, limit),
          })
          .returning({ count: requestDailyCounts.count })
          .get()
        if (counted === undefined) {
          const seconds = Math.max(1, Math.ceil((day + DAY_MS - now) / 1000))
          throw new HttpError(429, ERROR_MESSAGES.dailyRequestLimitReached, {
            headers: { 'Retry-After': String(seconds) },
          })
        }
      }
      tx.insert(fileRequests)
        .values({
          id,
          vault: fields.vault,
          vaultNonce: fields.vaultNonce,
          briefCiphertext: fields.briefCiphertext,
          briefNonce: fields.briefNonce,
          uploadTokenHash: fields.uploadTokenHash,
          inboxTokenHash: fields.inboxTokenHash,
          inboxOwnerTokenHash: fields.inboxOwnerTokenHash,
          hasPassword: fields.hasPassword,
          maxUploads: fields.maxUploads,
          maxSize: fields.maxSize,
          downloads: fields.downloads,
          createdAt: now,
          closesAt,
        })
        .run()
    })
    return { id, closesAt: iso(closesAt) }
  }

  /**
   * What `GET /api/request/limit` reports; counts nothing. Days are UTC days, so `resetsAt` is
   * the next UTC midnight.
   */
  limit(client: RequestClient): FileRequestLimitResponse {
    const limit = this.deps.config.fileRequestDailyLimit
    if (limit === 0) return { dailyLimit: 0, remaining: null, resetsAt: null }
    const day = dayStart(this.deps.now())
    const row = this.deps.db
      .select({ count: requestDailyCounts.count })
      .from(requestDailyCounts)
      .where(
        and(
          eq(requestDailyCounts.clientKey, this.clientKey(client, day)),
          eq(requestDailyCounts.dayStart, day),
        ),
      )
      .get()
    const remaining = Math.max(0, limit - (row?.count ?? 0))
    return { dailyLimit: limit, remaining, resetsAt: remaining === 0 ? iso(day + DAY_MS) : null }
  }

  /**
   * The sender's view (spec: GET /api/request/:id). A closed or expired request reads `open`
   * false with `uploadsLeft` and `maxUploadSize` 0; `uploadsLeft` leaves out slots that running
   * uploads hold.
   */
  read(id: string, uploadToken: string | undefined): FileRequestResponse {
    const token = parseRequestToken(uploadToken, 'x-upload-token')
    const row = this.findRequest(id)
    if (token === null || !tokenMatches(token, row.uploadTokenHash)) throw notFound()
    const open = this.isOpen(row)
    return {
      brief: { ciphertext: toBase64Url(row.briefCiphertext), nonce: toBase64Url(row.briefNonce) },
      open,
      closesAt: iso(row.closesAt),
      uploadsLeft: open ? Math.max(0, row.maxUploads - row.usedUploads - row.reservedUploads) : 0,
      maxUploadSize: open ? Math.min(this.deps.config.fileMaxSize, row.maxSize) : 0,
      maxFilesPerUpload: this.deps.config.fileMaxFilesPerUpload,
    }
  }

  /** Checks the init headers or frame fields: 400 when invalid, 413 over FILE_MAX_SIZE. */
  parseUploadInit(values: RequestUploadInitValues): RequestUploadInit {
    return parseUploadInitValues(values, this.deps.config)
  }

  /**
   * Opens an upload into a request: 404 for an unknown request or a wrong token, 410 when it is
   * closed or expired, then the slot and the size against `maxSize` in one statement (409 full,
   * 413 too large), then the sender's quota (413, 429). Whatever ends the session other than a
   * commit returns the slot and the quota. Over HTTP an idle session ends after one hour; a socket
   * (`idleMs` null) enforces its own progress rule.
   */
  async beginUpload(
    requestId: string,
    init: RequestUploadInit,
    clientIp: string,
    transport: 'http' | 'socket',
  ): Promise<UploadSession<RequestUploadContext>> {
    const { config, sessions, quota } = this.deps
    const row = this.findRequest(requestId)
    if (init.uploadToken === null || !tokenMatches(init.uploadToken, row.uploadTokenHash)) {
      throw notFound()
    }
    if (!this.isOpen(row)) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
    this.reserveSlot(requestId, init.size)
    let reservation: QuotaReservation
    try {
      reservation = quota.reserve(clientIp, init.size)
    } catch (error) {
      this.releaseSlot(requestId)
      throw error
    }
    try {
      const session = await sessions.create<RequestUploadContext>({
        declaredSize: init.size,
        context: { kind: 'request', requestId, init, clientIp, reservation },
        limits: {
          maxChunkSize: Math.min(config.fileChunkMaxSize, REQUEST_CHUNK_MAX_BYTES),
          maxBufferedChunks: config.fileUploadConcurrentChunks,
          // One more than clients send, so a retry may overlap an attempt the server still reads.
          maxChunksInFlight: config.fileUploadConcurrentChunks + 1,
          speedLimit: config.fileUploadSpeedLimit,
        },
        idleMs: transport === 'http' ? REQUEST_HTTP_SESSION_TIMEOUT_MS : null,
      })
      session.onEnd((outcome) => {
        if (outcome !== 'aborted') return
        this.releaseSlot(requestId)
        reservation.settle(false)
      })
      return session
    } catch (error) {
      this.releaseSlot(requestId)
      reservation.settle(false)
      throw error
    }
  }

  /** The open session `uploadId` of request `requestId`; 404 when unknown or of another request. */
  uploadSession(requestId: string, uploadId: string): UploadSession<RequestUploadContext> {
    const session = isUuid(uploadId)
      ? this.deps.sessions.get(uploadId, belongsTo(requestId))
      : undefined
    if (!session) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    return session
  }

  /** Whether `uploadId` is an open upload session of `requestId` (its chunks skip the rate limit). */
  isUploadSession(requestId: string, uploadId: string): boolean {
    return this.deps.sessions.get(uploadId, belongsTo(requestId)) !== undefined
  }

  /** Checks a finalize body; a 400 here leaves the session as it is, so the body may be resent. */
  parseFinalize(body: unknown): RequestUploadFinalize {
    return parseFinalizeBody(body)
  }

  /**
   * Stores a finished upload: 404 when the request was deleted meanwhile; the commit ends the
   * session with 400 when bytes are missing (the slot is returned); then the inbox entry, the
   * move of the slot from reserved to used and the added bytes are one transaction. An upload
   * whose request closed or expired while it ran still finishes (spec: File request, close).
   */
  async finalize(
    session: UploadSession<RequestUploadContext>,
    fields: RequestUploadFinalize,
  ): Promise<string> {
    const { db, janitor } = this.deps
    const { requestId, init, reservation } = session.context
    if (!this.requestExists(requestId)) {
      await session.abort()
      throw notFound()
    }
    await session.commit()
    const now = this.deps.now()
    let stored: boolean
    try {
      stored = db.transaction((tx) => {
        const moved = tx
          .update(fileRequests)
          .set({
            reservedUploads: decrementToZero(fileRequests.reservedUploads),
            usedUploads: increment(fileRequests.usedUploads),
            usedBytes: increment(fileRequests.usedBytes, init.size),
          })
          .where(eq(fileRequests.id, requestId))
          .returning({ downloads: fileRequests.downloads })
          .get()
        if (moved === undefined) return false
        tx.insert(requestUploads)
          .values({
            id: session.id,
            requestId,
            size: init.size,
            fileCount: init.fileCount,
            salt: init.salt,
            wrapEnc: fields.wrapEnc,
            wrapCiphertext: fields.wrapCiphertext,
            encryptedMeta: fields.encryptedMeta,
            metaNonce: fields.metaNonce,
            maxDownloads: moved.downloads,
            createdAt: now,
            expiresAt: now + this.deps.config.fileRequestRetentionSec * 1000,
          })
          .run()
        return true
      })
    } catch (error) {
      this.releaseSlot(requestId)
      reservation.settle(false)
      await janitor.remove(session.id)
      throw error
    }
    if (!stored) {
      reservation.settle(false)
      await janitor.remove(session.id)
      throw notFound()
    }
    reservation.settle(true)
    return session.id
  }

  /** Ends an unfinished upload and returns its slot (spec: DELETE /api/request/:id/upload/:uid). */
  async cancel(requestId: string, uploadId: string): Promise<void> {
    await this.uploadSession(requestId, uploadId).abort()
  }

  /**
   * Undoes an upload `finalize` stored whose sender never learned it (its socket died during the
   * commit): the entry and its blob are removed and its slot is free again, as for any socket
   * that closes before `done` (spec: Uploading into a request). The quota keeps the bytes, which
   * did arrive. Nothing happens when the upload is already gone.
   */
  async revoke(requestId: string, uploadId: string): Promise<void> {
    const removed = this.deps.db.transaction((tx) => {
      const row = tx
        .delete(requestUploads)
        .where(and(eq(requestUploads.id, uploadId), eq(requestUploads.requestId, requestId)))
        .returning({ size: requestUploads.size })
        .get()
      if (row === undefined) return false
      tx.update(fileRequests)
        .set({
          usedUploads: decrementToZero(fileRequests.usedUploads),
          usedBytes: decrementToZero(fileRequests.usedBytes, row.size),
        })
        .where(eq(fileRequests.id, requestId))
        .run()
      return true
    })
    if (removed) await this.deps.janitor.remove(uploadId)
  }

  /**
   * The requester's inbox (spec: GET /api/inbox/:id); never counts a download. `uploads` lists
   * only entries still downloadable, oldest first.
   */
  inbox(id: string, inboxToken: string | undefined, clientIp: string): InboxResponse {
    const row = this.authorize(id, inboxToken, 'inbox', clientIp)
    const now = this.deps.now()
    const entries = this.deps.db
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
      .all()
    return {
      vault: toBase64Url(row.vault),
      vaultNonce: toBase64Url(row.vaultNonce),
      brief: { ciphertext: toBase64Url(row.briefCiphertext), nonce: toBase64Url(row.briefNonce) },
      hasPassword: row.hasPassword,
      open: this.isOpen(row),
      closesAt: iso(row.closesAt),
      createdAt: iso(row.createdAt),
      maxUploads: row.maxUploads,
      maxSize: row.maxSize,
      usedUploads: row.usedUploads,
      usedBytes: row.usedBytes,
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
   * Counts one download of an inbox file atomically (only while below its downloads and before
   * its retention ends; 410 otherwise), then opens the blob (spec: GET /api/inbox/:id/file/:uid).
   */
  async inboxFile(
    id: string,
    uploadId: string,
    inboxToken: string | undefined,
    clientIp: string,
  ): Promise<InboxDownload> {
    this.authorize(id, inboxToken, 'inbox', clientIp)
    const { db } = this.deps
    const entry = isUuid(uploadId)
      ? db
          .select({ size: requestUploads.size, fileCount: requestUploads.fileCount })
          .from(requestUploads)
          .where(and(eq(requestUploads.id, uploadId), eq(requestUploads.requestId, id)))
          .get()
      : undefined
    if (!entry) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    return { ...entry, delivery: await this.counter.deliver(uploadId, this.deps.now()) }
  }

  /** Deletes one inbox file; its slot stays used (spec: DELETE /api/inbox/:id/file/:uid). */
  async deleteFile(
    id: string,
    uploadId: string,
    ownerToken: string | undefined,
    clientIp: string,
  ): Promise<void> {
    this.authorize(id, ownerToken, 'owner', clientIp)
    const deleted = isUuid(uploadId)
      ? this.deps.db
          .delete(requestUploads)
          .where(and(eq(requestUploads.id, uploadId), eq(requestUploads.requestId, id)))
          .returning({ id: requestUploads.id })
          .get()
      : undefined
    if (deleted === undefined) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    await this.deps.janitor.remove(uploadId)
  }

  /** Stops new uploads; running sessions finish (spec: POST /api/inbox/:id/close). */
  close(id: string, ownerToken: string | undefined, clientIp: string): void {
    this.authorize(id, ownerToken, 'owner', clientIp)
    this.deps.db.update(fileRequests).set({ closed: true }).where(eq(fileRequests.id, id)).run()
  }

  /**
   * Deletes the request and every upload in it (spec: DELETE /api/inbox/:id): running sessions
   * are ended, the records go in one transaction, then the blobs best effort (the janitor queues
   * a removal that fails; the orphan sweep catches a crash in between).
   */
  async deleteRequest(id: string, ownerToken: string | undefined, clientIp: string): Promise<void> {
    this.authorize(id, ownerToken, 'owner', clientIp)
    const { db, sessions, janitor } = this.deps
    const running = [...sessions.ids()]
      .map((uploadId) => sessions.get(uploadId, belongsTo(id)))
      .filter((session) => session !== undefined)
    await Promise.all(running.map((session) => session.abort()))
    const removed = db.transaction((tx) => {
      const uploads = tx
        .delete(requestUploads)
        .where(eq(requestUploads.requestId, id))
        .returning({ id: requestUploads.id })
        .all()
      tx.delete(fileRequests).where(eq(fileRequests.id, id)).run()
      return uploads
    })
    await janitor.removeAll(removed.map((upload) => upload.id))
  }

  /** Frees every reservation; at start, since no session survives a restart. */
  resetReservations(): number {
    return this.deps.db
      .update(fileRequests)
      .set({ reservedUploads: 0 })
      .where(gt(fileRequests.reservedUploads, 0))
      .returning({ id: fileRequests.id })
      .all().length
  }

  /**
   * Cleanup: deletes uploads whose retention ended or whose downloads are used up, records
   * first, then their blobs, holding those a presigned URL may still fetch (blob-janitor.ts).
   */
  async removeExpiredUploads(): Promise<RetiredCount> {
    const now = this.deps.now()
    const { removed, blobs } = this.deps.db.transaction((tx) => {
      const rows = tx
        .delete(requestUploads)
        .where(
          or(
            lte(requestUploads.expiresAt, now),
            gte(requestUploads.downloadCount, requestUploads.maxDownloads),
          ),
        )
        .returning({ id: requestUploads.id, lastDownloadAt: requestUploads.lastDownloadAt })
        .all()
      return { removed: rows.length, blobs: this.deps.janitor.holdForUrls(tx, rows) }
    })
    const queued = await this.deps.janitor.removeAll(blobs.removeNow)
    return { removed, queued, held: blobs.held }
  }

  /**
   * Cleanup: deletes requests that can hold nothing any more: `closesAt` lies more than
   * FILE_REQUEST_RETENTION_SEC back (so an upload that arrived before it is gone too), no upload
   * is left and none is running. A request closed early waits for its `closesAt` as well, since
   * the close time is not kept. Their ids then answer 404.
   */
  removeFinishedRequests(): number {
    const { db, config } = this.deps
    const cutoff = this.deps.now() - config.fileRequestRetentionSec * 1000
    return db
      .delete(fileRequests)
      .where(
        and(
          lte(fileRequests.closesAt, cutoff),
          eq(fileRequests.reservedUploads, 0),
          notExists(
            db
              .select({ id: requestUploads.id })
              .from(requestUploads)
              .where(eq(requestUploads.requestId, fileRequests.id)),
          ),
        ),
      )
      .returning({ id: fileRequests.id })
      .all().length
  }

  /** Cleanup: deletes the daily creation counts of past days. */
  pruneDailyCounts(): number {
    return this.deps.db
      .delete(requestDailyCounts)
      .where(lt(requestDailyCounts.dayStart, dayStart(this.deps.now())))
      .returning({ dayStart: requestDailyCounts.dayStart })
      .all().length
  }

  /**
   * Checks an inbox credential (spec: Request tokens): an unknown id 404; on a request with a
   * password, a locked caller 429 and each well-formed wrong token one failure of `request:<id>`
   * for the caller's IP; a missing, malformed or wrong token 404.
   */
  private authorize(
    id: string,
    presented: string | undefined,
    kind: InboxTokenKind,
    clientIp: string,
  ): RequestRow {
    const token = parseRequestToken(presented, TOKEN_HEADERS[kind])
    const row = this.findRequest(id)
    const stored = kind === 'inbox' ? row.inboxTokenHash : row.inboxOwnerTokenHash
    const guard = { key: `request:${id}`, clientIp, hasPassword: row.hasPassword }
    const checked = {
      matches: token !== null && tokenMatches(token, stored),
      wellFormed: token !== null,
    }
    if (!tokenUnderLockout(this.deps.lockout, guard, checked)) throw notFound()
    return row
  }

  private findRequest(id: string): RequestRow {
    const row = isUuid(id)
      ? this.deps.db.select().from(fileRequests).where(eq(fileRequests.id, id)).get()
      : undefined
    if (!row) throw notFound()
    return row
  }

  private requestExists(id: string): boolean {
    return (
      this.deps.db
        .select({ id: fileRequests.id })
        .from(fileRequests)
        .where(eq(fileRequests.id, id))
        .get() !== undefined
    )
  }

  private isOpen(row: { closed: boolean; closesAt: number }): boolean {
    return !row.closed && row.closesAt > this.deps.now()
  }

  /**
   * Takes a free slot for an upload of `size` bytes in one conditional UPDATE (spec: Upload slot,
   * "slot and size check pass in one step"). When nothing changed, the row says why.
   */
  private reserveSlot(requestId: string, size: number): void {
    const now = this.deps.now()
    const reserved = this.deps.db
      .update(fileRequests)
      .set({ reservedUploads: increment(fileRequests.reservedUploads) })
      .where(
        and(
          eq(fileRequests.id, requestId),
          eq(fileRequests.closed, false),
          gt(fileRequests.closesAt, now),
          gte(fileRequests.maxSize, size),
          sql`${fileRequests.usedUploads} + ${fileRequests.reservedUploads} < ${fileRequests.maxUploads}`,
        ),
      )
      .returning({ id: fileRequests.id })
      .get()
    if (reserved !== undefined) return
    const row = this.findRequest(requestId)
    if (!this.isOpen(row)) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
    if (row.maxSize < size) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
    throw new HttpError(409, ERROR_MESSAGES.requestFull)
  }

  private releaseSlot(requestId: string): void {
    this.deps.db
      .update(fileRequests)
      .set({ reservedUploads: decrement(fileRequests.reservedUploads) })
      .where(and(eq(fileRequests.id, requestId), gt(fileRequests.reservedUploads, 0)))
      .run()
  }

  /** `user:<sub>` with a login, otherwise `ip:` and the IP's HMAC under the day's key. */
  private clientKey(client: RequestClient, day: number): string {
    return client.user !== null
      ? `user:${client.user}`
      : `ip:${this.deps.ipHash.of(client.ip, day)}`
  }
}

function belongsTo(requestId: string) {
  return (context: unknown): context is RequestUploadContext =>
    isRequestUploadContext(context) && context.requestId === requestId
}

/** The start of the UTC day of `ms`. */
function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS
}
