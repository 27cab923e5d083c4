/**
 * File requests (spec: File request record, Upload inside a request, the "File request" and
 * "Upload slot inside a request" state tables): creation under the daily limit, the sender's
 * view and uploads into a request on the shared session layer. Both transports (HTTP routes,
 * request upload socket) use it; the requester's side is the inbox service (inbox.ts).
 *
 * A slot is one of `maxUploads`; it is free, reserved (a session runs) or used (an upload
 * finished; deleting the file keeps it used). Reserved and used slots are counters on the
 * request row, so reserving a slot and checking the size is one conditional UPDATE and no number
 * of concurrent inits can take more slots than there are. A request created with `senderNotes`
 * (ours) keeps `noteSlots` of them for senders' notes that go with files: such a note takes only
 * those, any other upload only the rest, so files alone never take a note's place.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import {
  ERROR_MESSAGES,
  REQUEST_CHUNK_MAX_BYTES,
  REQUEST_HTTP_SESSION_TIMEOUT_MS,
  isUuid,
  toBase64Url,
  type CreateFileRequestResponse,
  type FileRequestLimitResponse,
  type FileRequestResponse,
} from '@fileshare/protocol'
import { and, eq, gt, gte, lt, lte, notExists, or, sql } from 'drizzle-orm'

import { loginEnabled, type Config } from '../config.js'
import type { Db, Executor } from '../db/client.js'
import { decrementToZero, increment } from '../db/expressions.js'
import { HttpError } from '../http-error.js'
import { recordUploadFailed, recordUploadStarted } from '../metrics/recorder.js'
import { trackUploadSession } from '../metrics/track-session.js'
import type { BlobJanitor } from '../records/blob-janitor.js'
import { countToday, DAY_MS, dayStart } from '../limits/daily-counts.js'
import type { DailyIpHash, QuotaReservation, UploadQuota } from '../limits/quota.js'
import type { NotificationOutbox } from '../notify/outbox.js'
import type { Tombstones } from '../records/tombstones.js'
import {
  findRequest,
  isRequestOpen,
  iso,
  requestNotFound,
  requestTakedown,
} from './request-records.js'
import { releaseSlot } from './request-slots.js'
import { HOLD_LAPSE_MS } from '../sessions/streamed-session-records.js'
import {
  parseCreateBody,
  parseFinalizeBody,
  parseRequestToken,
  parseUploadInitValues,
  type RequestUploadFinalize,
  type RequestUploadInit,
  type RequestUploadInitValues,
} from './request-validation.js'
import { tokenMatches } from '../access/tokens.js'
import { invalid } from '../validation.js'
import { storedSessionStatus, type SessionStatus } from '../sessions/session-status.js'
import type { SessionScope, StoredChunkSessions } from '../sessions/stored-chunk-sessions.js'
import { finalizeStored } from '../sessions/stored-finalize.js'
import {
  NOTE_SLOT_CONTEXT,
  decodeRequestInit,
  encodeRequestInit,
} from '../sessions/stored-contexts.js'
import {
  sessionLimits,
  type NewSession,
  type SessionOutcome,
  type UploadSession,
  type UploadSessions,
} from '../sessions/upload-sessions.js'

export type { RequestUploadFinalize, RequestUploadInit } from './request-validation.js'

/** Who creates a request: the daily limit counts per login user when there is one, else per IP. */
export interface RequestClient {
  ip: string
  /** The OIDC `sub` of the caller's login, or null without one. */
  user: string | null
  /**
   * Reads the caller's login `sub` where requests need none (null without one), for what only a
   * signed-in creator may ask for; absent where no login can be read.
   */
  login?: () => Promise<string | null>
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
  sessions: UploadSessions
  quota: UploadQuota
  janitor: BlobJanitor
  /** Chunked sessions in the database (PostgreSQL); without it they live in `sessions`. */
  storedChunks?: StoredChunkSessions | undefined
  ipHash: DailyIpHash
  /** Where a request the operator took down is remembered. */
  tombstones: Tombstones
  /** Milliseconds since the epoch. */
  now: () => number
  /** Reports a failure nobody waits for (returning a slot after a session ended). */
  onError: (error: unknown) => void
  /** Where notifications of finished uploads are queued. */
  outbox: NotificationOutbox
  /** Called once notifications were queued, so a worker may send them at once. */
  onNotificationsQueued?: () => void
}

/** Bytes of a request's webhook signing key. */
const NOTIFY_SECRET_BYTES = 32

export class RequestsService {
  constructor(private readonly deps: RequestsDeps) {
    deps.sessions.registerKind<RequestUploadContext>('request', {
      restore: (row) => {
        const init = decodeRequestInit(row.context)
        const reservation = deps.quota.restore(row.quota)
        const requestId = row.requestId ?? ''
        const context: RequestUploadContext = {
          kind: 'request',
          requestId,
          init,
          clientIp: '',
          reservation,
        }
        const transport = row.transport === 'ws' ? 'socket' : 'http'
        return {
          spec: this.sessionSpec(context, transport),
          onEnd: this.onEnd(requestId, reservation, init.senderNote),
        }
      },
    })
  }

  /** The settings of a session: over HTTP an idle one ends after one hour. */
  private sessionSpec(
    context: RequestUploadContext,
    transport: 'http' | 'socket',
  ): NewSession<RequestUploadContext> {
    const { config } = this.deps
    return {
      declaredSize: context.init.size,
      context,
      limits: sessionLimits(config, Math.min(config.fileChunkMaxSize, REQUEST_CHUNK_MAX_BYTES)),
      idleMs: transport === 'http' ? REQUEST_HTTP_SESSION_TIMEOUT_MS : null,
    }
  }

  /** What ends with a session that did not commit: its slot and its hold on the quota. */
  private onEnd(requestId: string, reservation: QuotaReservation, note: boolean) {
    return async (outcome: SessionOutcome) => {
      if (outcome !== 'aborted') return
      await this.releaseSlot(requestId, note)
      await reservation.settle(false)
    }
  }

  /**
   * Creates a request (spec: POST /api/request): 400 for an invalid body (or, with a login
   * configured, an email notification asked for without one), 429 when the caller's
   * FILE_REQUEST_DAILY_LIMIT or NOTIFY_EMAIL_DAILY_LIMIT is used up. The counts and the record
   * are written in one transaction, so a refused or failed creation counts nothing.
   */
  async create(body: unknown, client: RequestClient): Promise<CreateFileRequestResponse> {
    const { config, db } = this.deps
    const { fileRequests } = db.tables
    const fields = parseCreateBody(body, config)
    const now = this.deps.now()
    const id = randomUUID()
    const closesAt = now + fields.expireSec * 1000
    // Kept in clear, since signing needs it; it is given to the creator only in this answer.
    const webhookSecret = fields.notifyWebhook === null ? null : randomBytes(NOTIFY_SECRET_BYTES)
    const clientKey = this.clientKey(client, dayStart(now))
    // With a login configured only a signed-in creator may name an address, counted per login.
    let emailKey = `email:${clientKey}`
    if (fields.notifyEmail !== null && loginEnabled(config)) {
      const login = client.user ?? (await client.login?.()) ?? null
      if (login === null) throw invalid({ notifyEmail: 'needs a signed-in creator on this server' })
      emailKey = `email:user:${login}`
    }
    const limit = config.fileRequestDailyLimit
    const emailLimit = config.notify.emailDailyLimit
    await db.transaction(async (tx) => {
      if (limit > 0) {
        const wait = await countToday(tx, db.tables, clientKey, limit, now)
        if (wait !== null) throw dailyLimitReached(ERROR_MESSAGES.dailyRequestLimitReached, wait)
      }
      // Each address is typed by the creator, unverified: bounded per creator, with the count
      // of mails per request (storeUpload), so the server cannot be used to flood an inbox.
      if (fields.notifyEmail !== null && emailLimit > 0) {
        const wait = await countToday(tx, db.tables, emailKey, emailLimit, now)
        if (wait !== null) throw dailyLimitReached(ERROR_MESSAGES.notifyEmailLimitReached, wait)
      }
      await tx.insert(fileRequests).values({
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
        noteSlots: fields.noteSlots,
        maxSize: fields.maxSize,
        downloads: fields.downloads,
        createdAt: now,
        closesAt,
        notifyEmail: fields.notifyEmail,
        notifyWebhook: fields.notifyWebhook,
        notifyWebhookSecret: webhookSecret,
      })
    })
    return {
      id,
      closesAt: iso(closesAt),
      ...(webhookSecret === null ? {} : { notifyWebhookSecret: toBase64Url(webhookSecret) }),
    }
  }

  /**
   * What `GET /api/request/limit` reports; counts nothing. Days are UTC days, so `resetsAt` is
   * the next UTC midnight.
   */
  async limit(client: RequestClient): Promise<FileRequestLimitResponse> {
    const limit = this.deps.config.fileRequestDailyLimit
    if (limit === 0) return { dailyLimit: 0, remaining: null, resetsAt: null }
    const { requestDailyCounts } = this.deps.db.tables
    const day = dayStart(this.deps.now())
    const [row] = await this.deps.db.query
      .select({ count: requestDailyCounts.count })
      .from(requestDailyCounts)
      .where(
        and(
          eq(requestDailyCounts.clientKey, this.clientKey(client, day)),
          eq(requestDailyCounts.dayStart, day),
        ),
      )
    const remaining = Math.max(0, limit - (row?.count ?? 0))
    return { dailyLimit: limit, remaining, resetsAt: remaining === 0 ? iso(day + DAY_MS) : null }
  }

  /**
   * The sender's view (spec: GET /api/request/:id). A closed or expired request reads `open`
   * false with `uploadsLeft` and `maxUploadSize` 0; `uploadsLeft` leaves out slots that running
   * uploads hold. With note slots, `uploadsLeft` counts the others and `notesLeft` those.
   */
  async read(id: string, uploadToken: string | undefined): Promise<FileRequestResponse> {
    const token = parseRequestToken(uploadToken, 'x-upload-token')
    const row = await findRequest(this.deps.db, this.deps.tombstones, id)
    if (token === null || !tokenMatches(token, row.uploadTokenHash)) throw requestNotFound()
    const open = isRequestOpen(row, this.deps.now())
    const left = (max: number, used: number) => (open ? Math.max(0, max - used) : 0)
    const notesTaken = row.usedNotes + row.reservedNotes
    return {
      brief: { ciphertext: toBase64Url(row.briefCiphertext), nonce: toBase64Url(row.briefNonce) },
      open,
      closesAt: iso(row.closesAt),
      uploadsLeft: left(
        row.maxUploads - row.noteSlots,
        row.usedUploads + row.reservedUploads - notesTaken,
      ),
      maxUploadSize: open ? Math.min(this.deps.config.fileMaxSize, row.maxSize) : 0,
      maxFilesPerUpload: this.deps.config.fileMaxFilesPerUpload,
      ...(row.noteSlots > 0 ? { notesLeft: left(row.noteSlots, notesTaken) } : {}),
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
   * (`idleMs` null) enforces its own progress rule. Only a `resumable` session (its client asked)
   * keeps its slot past a lost connection or a restart.
   */
  async beginUpload(
    requestId: string,
    init: RequestUploadInit,
    clientIp: string,
    transport: 'http' | 'socket',
    resumable: boolean,
  ): Promise<UploadSession<RequestUploadContext>> {
    const { sessions, quota } = this.deps
    init = await this.admitUpload(requestId, init)
    let reservation: QuotaReservation
    try {
      reservation = await quota.reserve(clientIp, init.size)
    } catch (error) {
      await this.releaseSlot(requestId, init.senderNote)
      throw error
    }
    try {
      const context: RequestUploadContext = {
        kind: 'request',
        requestId,
        init,
        clientIp,
        reservation,
      }
      const session = await sessions.create(this.sessionSpec(context, transport), {
        kind: 'request',
        requestId,
        transport: transport === 'socket' ? 'ws' : 'chunks',
        context: encodeRequestInit(init),
        quota: reservation.record,
        resumable,
      })
      session.onEnd(this.onEnd(requestId, reservation, init.senderNote))
      trackUploadSession(session, transport === 'socket' ? 'ws' : 'chunks', true)
      return session
    } catch (error) {
      await this.releaseSlot(requestId, init.senderNote)
      await reservation.settle(false)
      throw error
    }
  }

  /**
   * The checks of an upload's init: 404 for an unknown request or a wrong token, 410 when it is
   * closed or expired, then the slot and the size against `maxSize` in one statement. Answers the
   * init with `senderNote` saying whether the slot taken is a note's.
   */
  private async admitUpload(
    requestId: string,
    init: RequestUploadInit,
  ): Promise<RequestUploadInit> {
    const row = await findRequest(this.deps.db, this.deps.tombstones, requestId)
    if (init.uploadToken === null || !tokenMatches(init.uploadToken, row.uploadTokenHash)) {
      throw requestNotFound()
    }
    if (!isRequestOpen(row, this.deps.now())) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
    const senderNote = await this.reserveSlot(requestId, init.size, init.senderNote)
    return { ...init, senderNote }
  }

  /**
   * Opens a chunked upload into a request (spec: POST /api/request/:id/upload/init) and answers
   * its id. With sessions in the database its slot and its quota hold are named on the session's
   * row, so that any instance takes its chunks and whichever ends it gives them back.
   */
  async beginChunkedUpload(
    requestId: string,
    init: RequestUploadInit,
    clientIp: string,
    resumable: boolean,
  ): Promise<string> {
    const stored = this.deps.storedChunks
    if (!stored) return (await this.beginUpload(requestId, init, clientIp, 'http', resumable)).id
    init = await this.admitUpload(requestId, init)
    let held
    try {
      held = await this.deps.quota.reserveHeld(clientIp, init.size)
    } catch (error) {
      await this.releaseSlot(requestId, init.senderNote)
      throw error
    }
    const id = randomUUID()
    try {
      await stored.open(id, {
        declaredSize: init.size,
        context: encodeRequestInit(init),
        requestId,
        quota: held,
        resumable,
      })
    } catch (error) {
      await this.releaseSlot(requestId, init.senderNote)
      if (held) await this.deps.quota.endHeld(this.deps.db.query, held, false)
      throw error
    }
    recordUploadStarted('chunks')
    return id
  }

  /** The chunks an upload into a request admits: its own sessions, 16 MiB at most. */
  chunkScope(requestId: string): SessionScope {
    return {
      requestId,
      maxChunkSize: Math.min(this.deps.config.fileChunkMaxSize, REQUEST_CHUNK_MAX_BYTES),
    }
  }

  /** The chunked sessions kept in the database, when they are (PostgreSQL). */
  get storedChunks(): StoredChunkSessions | undefined {
    return this.deps.storedChunks
  }

  /** 404 unless `uploadId` is an open chunked session of `requestId` (before a body is read). */
  async requireChunkedUpload(requestId: string, uploadId: string): Promise<void> {
    if (!(await this.isUploadSession(requestId, uploadId))) {
      throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
  }

  /**
   * Finalizes a chunked upload into a request on whichever instance the request reached: the
   * session is claimed once, its chunks joined into the blob, and the inbox entry, the move of the
   * slot from reserved to used and the quota are written in the transaction that ends it.
   */
  async finalizeChunked(
    requestId: string,
    uploadId: string,
    fields: RequestUploadFinalize,
  ): Promise<string> {
    const stored = this.deps.storedChunks
    if (!stored) return this.finalize(await this.uploadSession(requestId, uploadId), fields)
    await this.requireChunkedUpload(requestId, uploadId)
    if (!(await this.requestExists(requestId))) {
      await stored.remove([uploadId])
      throw requestNotFound()
    }
    if (!isUuid(uploadId)) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    const deps = { stored, janitor: this.deps.janitor }
    const queued = await finalizeStored(deps, uploadId, requestId, async (tx, claimed) => {
      const init = decodeRequestInit(claimed.context)
      const count = await this.storeUpload(tx, requestId, uploadId, init, fields)
      if (count === false) throw requestNotFound()
      return count
    })
    if (queued > 0) this.deps.onNotificationsQueued?.()
    return uploadId
  }

  /**
   * How far the stored session `uploadId` of `requestId` got (GET
   * /api/request/:id/upload/:uid/status): the session id is its credential; null when there is
   * none in that request.
   */
  async storedStatus(requestId: string, uploadId: string): Promise<SessionStatus | null> {
    const stored = this.deps.storedChunks
    if (!stored || !isUuid(uploadId) || !isUuid(requestId)) return null
    const open = await stored.find(uploadId, requestId)
    return open ? storedSessionStatus(open) : null
  }

  /**
   * Resumes the unfinished upload `uploadId` of request `requestId` from the largest durable point
   * at or below `offset` (`recorded` for chunks: the chunk its row records). 404 for an unknown
   * upload or one of another request, 400 for an offset past the durable bytes, 409 while a live
   * connection holds it.
   */
  async resumeUpload(
    requestId: string,
    uploadId: string,
    offset: number | 'recorded',
  ): Promise<UploadSession<RequestUploadContext>> {
    if (!isUuid(uploadId)) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    const session = await this.deps.sessions.resume<RequestUploadContext>(
      uploadId,
      (row) => {
        const chunks = offset === 'recorded'
        if (
          row.kind !== 'request' ||
          row.requestId !== requestId ||
          (chunks && row.transport !== 'chunks')
        ) {
          throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
        }
      },
      offset,
    )
    trackUploadSession(session, offset === 'recorded' ? 'chunks' : 'ws', true, 'resumed')
    return session
  }

  /** The open session `uploadId` of request `requestId`; 404 when unknown or of another request. */
  async uploadSession(
    requestId: string,
    uploadId: string,
  ): Promise<UploadSession<RequestUploadContext>> {
    const session = isUuid(uploadId)
      ? this.deps.sessions.get(uploadId, belongsTo(requestId))
      : undefined
    return session ?? this.resumeUpload(requestId, uploadId, 'recorded')
  }

  /** Whether `uploadId` is an open upload session of `requestId` (its chunks skip the rate limit). */
  async isUploadSession(requestId: string, uploadId: string): Promise<boolean> {
    if (this.deps.sessions.get(uploadId, belongsTo(requestId)) !== undefined) return true
    // A dormant session (a chunk cut off, or a restart it was asked to outlive) takes its next chunk.
    const dormant = isUuid(uploadId) ? await this.deps.sessions.findDormant(uploadId) : undefined
    if (dormant?.kind === 'request' && dormant.requestId === requestId) return true
    const stored = this.deps.storedChunks
    if (!stored || !isUuid(uploadId) || !isUuid(requestId)) return false
    return (await stored.find(uploadId, requestId)) !== undefined
  }

  /** Checks a finalize body; a 400 here leaves the session as it is, so the body may be resent. */
  parseFinalize(body: unknown): RequestUploadFinalize {
    return parseFinalizeBody(body)
  }

  /**
   * Stores a finished upload: 404 when the request was deleted meanwhile; the commit ends the
   * session with 400 when bytes are missing (the slot is returned); then the inbox entry, the
   * move of the slot from reserved to used, the added bytes and the queued notifications are one
   * transaction, so a notification exists exactly when the upload does. An upload
   * whose request closed or expired while it ran still finishes (spec: File request, close).
   */
  async finalize(
    session: UploadSession<RequestUploadContext>,
    fields: RequestUploadFinalize,
  ): Promise<string> {
    const { db, janitor } = this.deps
    const { requestId, init, reservation } = session.context
    if (!(await this.requestExists(requestId))) {
      await session.abort()
      throw requestNotFound()
    }
    await session.commit()
    let queued: number | false
    try {
      queued = await db.transaction((tx) =>
        this.storeUpload(tx, requestId, session.id, init, fields),
      )
    } catch (error) {
      await this.releaseSlot(requestId, init.senderNote).catch(this.deps.onError)
      await reservation.settle(false)
      await janitor.remove(session.id)
      throw error
    }
    if (queued === false) {
      await reservation.settle(false)
      await janitor.remove(session.id)
      throw requestNotFound()
    }
    await reservation.settle(true)
    if (queued > 0) this.deps.onNotificationsQueued?.()
    return session.id
  }

  /**
   * On `tx`: the inbox entry of a finished upload, the move of its slot from reserved to used and
   * its notifications; the number of those queued, or false when the request is gone.
   */
  private async storeUpload(
    tx: Executor,
    requestId: string,
    uploadId: string,
    init: RequestUploadInit,
    fields: RequestUploadFinalize,
  ): Promise<number | false> {
    const { fileRequests, requestUploads } = this.deps.db.tables
    const now = this.deps.now()
    const [moved] = await tx
      .update(fileRequests)
      .set({
        reservedUploads: decrementToZero(fileRequests.reservedUploads),
        usedUploads: increment(fileRequests.usedUploads),
        usedBytes: increment(fileRequests.usedBytes, init.size),
        ...(init.senderNote
          ? {
              reservedNotes: decrementToZero(fileRequests.reservedNotes),
              usedNotes: increment(fileRequests.usedNotes),
            }
          : {}),
      })
      .where(eq(fileRequests.id, requestId))
      .returning({
        downloads: fileRequests.downloads,
        notifyEmail: fileRequests.notifyEmail,
        notifyWebhook: fileRequests.notifyWebhook,
        notifyWebhookSecret: fileRequests.notifyWebhookSecret,
      })
    if (moved === undefined) return false
    await tx.insert(requestUploads).values({
      id: uploadId,
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
    const upload = { uploadId, requestId, size: init.size, arrivedAt: now }
    const mail = moved.notifyEmail !== null && (await this.countEmail(tx, requestId))
    return this.deps.outbox.enqueue(tx, upload, {
      ...moved,
      notifyEmail: mail ? moved.notifyEmail : null,
    })
  }

  /** On `tx`: counts one notification mail of `requestId`; false once it has caused its maximum. */
  private async countEmail(tx: Executor, requestId: string): Promise<boolean> {
    const { fileRequests } = this.deps.db.tables
    const [counted] = await tx
      .update(fileRequests)
      .set({ notifyEmailsQueued: increment(fileRequests.notifyEmailsQueued) })
      .where(
        and(
          eq(fileRequests.id, requestId),
          lt(fileRequests.notifyEmailsQueued, this.deps.config.notify.emailMaxPerRequest),
        ),
      )
      .returning({ id: fileRequests.id })
    return counted !== undefined
  }

  /** Ends an unfinished upload and returns its slot (spec: DELETE /api/request/:id/upload/:uid). */
  async cancel(requestId: string, uploadId: string): Promise<void> {
    const stored = this.deps.storedChunks
    if (stored && isUuid(uploadId) && (await stored.find(uploadId, requestId))) {
      await stored.remove([uploadId])
      recordUploadFailed('chunks')
      return
    }
    const open = isUuid(uploadId) ? this.deps.sessions.get(uploadId, belongsTo(requestId)) : null
    if (open) return open.abort()
    const dormant = isUuid(uploadId) ? await this.deps.sessions.findDormant(uploadId) : undefined
    if (dormant?.kind !== 'request' || dormant.requestId !== requestId) {
      // A request the operator took down answers its 410 here too, as on its other routes.
      const takedown = await requestTakedown(this.deps.tombstones, requestId)
      throw takedown ?? new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
    await this.deps.sessions.endDormant(dormant)
  }

  /**
   * Undoes an upload `finalize` stored whose sender never learned it (its socket died during the
   * commit): the entry and its blob are removed and its slot is free again, as for any socket
   * that closes before `done` (spec: Uploading into a request). The quota keeps the bytes, which
   * did arrive. Nothing happens when the upload is already gone. `note`: it held a note's slot.
   */
  async revoke(requestId: string, uploadId: string, note: boolean): Promise<void> {
    const { fileRequests, requestUploads } = this.deps.db.tables
    const removed = await this.deps.db.transaction(async (tx) => {
      const [row] = await tx
        .delete(requestUploads)
        .where(and(eq(requestUploads.id, uploadId), eq(requestUploads.requestId, requestId)))
        .returning({ size: requestUploads.size })
      if (row === undefined) return false
      await this.deps.outbox.withdraw(tx, uploadId)
      await tx
        .update(fileRequests)
        .set({
          usedUploads: decrementToZero(fileRequests.usedUploads),
          usedBytes: decrementToZero(fileRequests.usedBytes, row.size),
          ...(note ? { usedNotes: decrementToZero(fileRequests.usedNotes) } : {}),
        })
        .where(eq(fileRequests.id, requestId))
      return true
    })
    if (removed) await this.deps.janitor.remove(uploadId)
  }

  /**
   * At start: frees the reservations that no session holds any more. Sessions that were not
   * durable died with the last run, and those whose client did not ask to resume were ended
   * before this; a session with a row in the database (streamed_sessions, or chunk_sessions on
   * PostgreSQL) may still resume, or runs on another instance, and keeps its slot.
   * On PostgreSQL another instance may have reserved a slot and not yet written its session's
   * row, so a request whose last reservation is younger than HOLD_LAPSE_MS keeps its count (one
   * conditional update: a reservation made meanwhile moves `slotReservedAt` and is left alone).
   * SQLite's single instance has nothing in flight at start.
   */
  async resetReservations(): Promise<number> {
    const { db } = this.deps
    const { fileRequests, streamedSessions, chunkSessions } = db.tables
    const held = sql<number>`(select count(*) from ${streamedSessions} where ${streamedSessions.requestId} = ${fileRequests.id}) + (select count(*) from ${chunkSessions} where ${chunkSessions.requestId} = ${fileRequests.id})`
    const unheld = gt(fileRequests.reservedUploads, held)
    const settled = lte(fileRequests.slotReservedAt, this.deps.now() - HOLD_LAPSE_MS)
    const note = `%${NOTE_SLOT_CONTEXT}%`
    const heldNotes = sql<number>`(select count(*) from ${streamedSessions} where ${streamedSessions.requestId} = ${fileRequests.id} and ${streamedSessions.context} like ${note}) + (select count(*) from ${chunkSessions} where ${chunkSessions.requestId} = ${fileRequests.id} and ${chunkSessions.context} like ${note})`
    const surplus = or(unheld, gt(fileRequests.reservedNotes, heldNotes))
    const freed = await db.query
      .update(fileRequests)
      .set({ reservedUploads: held, reservedNotes: heldNotes })
      .where(db.dialect === 'sqlite' ? surplus : and(surplus, settled))
      .returning({ id: fileRequests.id })
    return freed.length
  }

  /**
   * Cleanup: deletes requests that can hold nothing any more: `closesAt` lies more than
   * FILE_REQUEST_RETENTION_SEC back (so an upload that arrived before it is gone too), no upload
   * is left and none is running. A request closed early waits for its `closesAt` as well, since
   * the close time is not kept. Their ids then answer 404.
   */
  async removeFinishedRequests(): Promise<number> {
    const { db, config } = this.deps
    const { fileRequests, requestUploads } = db.tables
    const cutoff = this.deps.now() - config.fileRequestRetentionSec * 1000
    const removed = await db.query
      .delete(fileRequests)
      .where(
        and(
          lte(fileRequests.closesAt, cutoff),
          eq(fileRequests.reservedUploads, 0),
          notExists(
            db.query
              .select({ id: requestUploads.id })
              .from(requestUploads)
              .where(eq(requestUploads.requestId, fileRequests.id)),
          ),
        ),
      )
      .returning({ id: fileRequests.id })
    return removed.length
  }

  /** Cleanup: deletes the daily creation counts of past days. */
  async pruneDailyCounts(): Promise<number> {
    const { requestDailyCounts } = this.deps.db.tables
    const removed = await this.deps.db.query
      .delete(requestDailyCounts)
      .where(lt(requestDailyCounts.dayStart, dayStart(this.deps.now())))
      .returning({ dayStart: requestDailyCounts.dayStart })
    return removed.length
  }

  private async requestExists(id: string): Promise<boolean> {
    const { fileRequests } = this.deps.db.tables
    const [row] = await this.deps.db.query
      .select({ id: fileRequests.id })
      .from(fileRequests)
      .where(eq(fileRequests.id, id))
    return row !== undefined
  }

  /**
   * Takes a free slot for an upload of `size` bytes in one conditional UPDATE (spec: Upload slot,
   * "slot and size check pass in one step"): a note's slot for a sender's note where the request
   * keeps some, otherwise one of the rest. Answers whether it took a note's slot. When nothing
   * changed, the row says why.
   */
  private async reserveSlot(requestId: string, size: number, note: boolean): Promise<boolean> {
    const { fileRequests: r } = this.deps.db.tables
    const now = this.deps.now()
    const notesTaken = sql`(${r.usedNotes} + ${r.reservedNotes})`
    const othersFree = sql`${r.usedUploads} + ${r.reservedUploads} - ${notesTaken} < ${r.maxUploads} - ${r.noteSlots}`
    const free = note
      ? sql`((${r.noteSlots} > 0 and ${notesTaken} < ${r.noteSlots}) or (${r.noteSlots} = 0 and ${othersFree}))`
      : othersFree
    const [reserved] = await this.deps.db.query
      .update(r)
      .set({
        reservedUploads: increment(r.reservedUploads),
        slotReservedAt: now,
        ...(note
          ? {
              reservedNotes: sql`${r.reservedNotes} + case when ${r.noteSlots} > 0 then 1 else 0 end`,
            }
          : {}),
      })
      .where(
        and(
          eq(r.id, requestId),
          eq(r.closed, false),
          gt(r.closesAt, now),
          gte(r.maxSize, size),
          free,
        ),
      )
      .returning({ noteSlots: r.noteSlots })
    if (reserved !== undefined) return note && reserved.noteSlots > 0
    const row = await findRequest(this.deps.db, this.deps.tombstones, requestId)
    if (!isRequestOpen(row, this.deps.now())) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
    if (row.maxSize < size) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
    throw new HttpError(409, ERROR_MESSAGES.requestFull)
  }

  private async releaseSlot(requestId: string, note: boolean): Promise<void> {
    await releaseSlot(this.deps.db.query, this.deps.db.tables, requestId, note)
  }

  /** `user:<sub>` with a login, otherwise `ip:` and the IP's HMAC under the day's key. */
  private clientKey(client: RequestClient, day: number): string {
    return client.user !== null
      ? `user:${client.user}`
      : `ip:${this.deps.ipHash.of(client.ip, day)}`
  }
}

/** Picks the upload sessions of request `requestId`. */
export function belongsTo(requestId: string) {
  return (context: unknown): context is RequestUploadContext =>
    isRequestUploadContext(context) && context.requestId === requestId
}

/** A 429 for a daily limit, with the seconds until the next UTC day. */
function dailyLimitReached(message: string, retryAfterSec: number): HttpError {
  return new HttpError(429, message, { headers: { 'Retry-After': String(retryAfterSec) } })
}
