/**
 * Uploads into a file request (spec: Upload inside a request, the "Upload slot inside a request"
 * state table) on the shared session layer: init, resume, finalize, cancel and revoke. The request
 * itself (creation, the sender's view, cleanup) is file-requests.ts, its slots request-slots.ts.
 * Both transports (HTTP routes, request upload socket) use it; the requester's side is inbox.ts.
 * May touch: tables file_requests, request_uploads; the metrics registry; the rest
 * through the session layer (sessions/), the quota and the slots.
 */
import { randomUUID } from 'node:crypto'

import {
  ERROR_MESSAGES,
  REQUEST_CHUNK_MAX_BYTES,
  RequestDeclaration,
  fromBase64Url,
  isUuid,
  type ReceivedHeaderValues,
} from '@fileshare/protocol'
import { and, eq, lt } from 'drizzle-orm'

import type { Executor } from '../db/client.js'
import { decrementToZero, increment } from '../db/expressions.js'
import { HttpError } from '../http-error.js'
import { decodedOrThrow } from '../validation.js'
import { recordUploadFailed, recordUploadStarted, trackUploadSession } from '../metrics/recorder.js'
import { findRequest, isRequestOpen, requestNotFound, requestTakedown } from './request-records.js'
import { reserveSlot } from './request-slots.js'
import { FileRequests, type RequestsDeps } from './file-requests.js'
import {
  belongsTo,
  parseFinalizeBody,
  type RequestUploadContext,
  type RequestUploadFinalize,
  type RequestUploadInit,
} from './request-validation.js'
import { tokenMatches } from '../access/tokens.js'
import type { Admission } from '../sessions/session-holds.js'
import type { SessionScope } from '../sessions/chunk-intake.js'
import type { ChunkSessions } from '../sessions/chunk-sessions.js'
import type { FinishingSession } from '../sessions/finishing-session.js'
import { decodeRequestInit, encodeRequestInit } from '../sessions/stored-contexts.js'
import type { NewSession, UploadSession } from '../sessions/upload-session.js'

export class RequestsService extends FileRequests {
  constructor(deps: RequestsDeps) {
    super(deps)
    deps.sessions.registerKind<RequestUploadContext>('request', {
      restore: (row) => {
        const init = decodeRequestInit(row.context)
        const requestId = row.requestId ?? ''
        const context: RequestUploadContext = { kind: 'request', requestId, init, clientIp: '' }
        return { spec: sessionSpec(context) }
      },
    })
  }

  /**
   * Checks init headers (spec: POST /api/request/:id/upload/init) or an `init` frame's `request`:
   * 400 invalid, 413 over FILE_MAX_SIZE. A malformed token becomes null, answered 404 on admission.
   */
  declared(from: { headers: ReceivedHeaderValues } | { frame: unknown }): RequestUploadInit {
    const { fileMaxSize: maxSize, fileMaxFilesPerUpload: maxFilesPerUpload } = this.deps.config
    const limits = { maxSize, maxFilesPerUpload }
    const decoded =
      'headers' in from
        ? RequestDeclaration.fromHeaders(from.headers, limits)
        : RequestDeclaration.fromFrame(from.frame, limits)
    const { uploadToken, salt, size, fileCount, senderNote } = decodedOrThrow(decoded)
    return { uploadToken, salt: Buffer.from(fromBase64Url(salt)), size, fileCount, senderNote }
  }

  /**
   * Opens an upload into a request over a socket once `admitUpload` passed. Whatever ends the
   * session other than a commit returns the slot and the quota; only a `resumable` session keeps
   * them past a lost connection or a restart.
   */
  async beginUpload(
    requestId: string,
    init: RequestUploadInit,
    clientIp: string,
    resumable: boolean,
  ): Promise<UploadSession<RequestUploadContext>> {
    const { admitted, admit } = await this.admitUpload(requestId, init, clientIp)
    const context: RequestUploadContext = { kind: 'request', requestId, init: admitted, clientIp }
    const session = await this.deps.sessions.create(sessionSpec(context), admit, {
      kind: 'request',
      requestId,
      context: encodeRequestInit(admitted),
      resumable,
    })
    trackUploadSession(session, 'ws', true)
    return session
  }

  /**
   * An upload's init: 404 unknown request or wrong token, 410 closed; then `admit`, run by the
   * transaction that writes the session's row, takes slot and size in one statement (409 full,
   * 413 too large) and the sender's quota (413, 429). `admitted.senderNote` says whether the slot
   * is a note's: only a request that keeps slots for notes gives one.
   */
  private async admitUpload(
    requestId: string,
    init: RequestUploadInit,
    clientIp: string,
  ): Promise<{ admitted: RequestUploadInit; admit: Admission }> {
    const row = await findRequest(this.deps.db, this.deps.tombstones, requestId)
    if (init.uploadToken === null || !tokenMatches(init.uploadToken, row.uploadTokenHash)) {
      throw requestNotFound()
    }
    if (!isRequestOpen(row, this.deps.now())) throw new HttpError(410, ERROR_MESSAGES.requestClosed)
    const slot = { requestId, note: init.senderNote && row.noteSlots > 0 }
    const admit: Admission = async (on) => {
      await reserveSlot(this.deps, on, requestId, init.size, slot.note)
      return { quota: await this.deps.quota.reserve(clientIp, init.size, on), slot }
    }
    return { admitted: { ...init, senderNote: slot.note }, admit }
  }

  /**
   * Opens a chunked upload (spec: POST /api/request/:id/upload/init); its holds are named on the
   * session's row, so that any instance takes its chunks and whichever ends it gives them back.
   */
  async beginChunkedUpload(
    requestId: string,
    init: RequestUploadInit,
    clientIp: string,
    resumable: boolean,
  ): Promise<string> {
    const { admitted, admit } = await this.admitUpload(requestId, init, clientIp)
    const id = randomUUID()
    const context = encodeRequestInit(admitted)
    await this.deps.chunkSessions.open(
      id,
      { declaredSize: init.size, context, requestId, resumable },
      admit,
    )
    recordUploadStarted('chunks')
    return id
  }

  /** The chunks an upload into a request admits: those of its own sessions. */
  chunkScope(requestId: string): SessionScope {
    const maxChunkSize = Math.min(this.deps.config.fileChunkMaxSize, REQUEST_CHUNK_MAX_BYTES)
    return { requestId, maxChunkSize }
  }

  /** The chunk writer's sessions, which take a chunked upload's chunks on any instance. */
  get chunkSessions(): ChunkSessions {
    return this.deps.chunkSessions
  }

  /** An open chunked upload of `requestId`, from any instance; 404 before a body is read. */
  async chunked(requestId: string, uploadId: string): Promise<FinishingSession<RequestUploadEnd>> {
    const session = isUuid(uploadId)
      ? await this.deps.chunkSessions.opened(uploadId, requestId, (context) => ({
          requestId,
          init: decodeRequestInit(context),
        }))
      : undefined
    if (!session) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    return session
  }

  /**
   * Resumes an unfinished upload of `requestId` over a new socket from the largest durable point
   * at or below `offset`: 404 unknown, 400 past the durable bytes, 409 while a connection holds it.
   */
  async resumeUpload(
    requestId: string,
    uploadId: string,
    offset: number,
  ): Promise<UploadSession<RequestUploadContext>> {
    if (!isUuid(uploadId)) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    return this.deps.sessions.resume<RequestUploadContext>(uploadId, 'request', offset, (row) => {
      if (row.requestId !== requestId) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    })
  }

  /** Whether `uploadId` is an open upload session of `requestId` (its chunks skip the rate limit). */
  async isUploadSession(requestId: string, uploadId: string): Promise<boolean> {
    if (!isUuid(uploadId) || !isUuid(requestId)) return false
    return (await this.deps.chunkSessions.find(uploadId, requestId)) !== undefined
  }

  /**
   * Stores a finished upload, whichever writer holds its session: 400 for an invalid `body` first,
   * leaving the session for a resend; 404 when the request is gone; 400 when bytes are missing.
   * Entry, slot, bytes and notifications are one transaction, so a notification exists exactly
   * when the upload does; an upload whose request closed meanwhile still finishes (spec: close).
   */
  async finalize(session: FinishingSession<RequestUploadEnd>, body: unknown): Promise<string> {
    const fields = parseFinalizeBody(body)
    const { janitor } = this.deps
    const { requestId, init } = session.context
    if (!(await this.requestExists(requestId))) {
      await session.abort()
      throw requestNotFound()
    }
    const queued = await session.finish(
      async (tx) => {
        const count = await this.storeUpload(tx, requestId, session.id, init, fields)
        if (count === false) throw requestNotFound()
        return count
      },
      () => janitor.remove(session.id),
    )
    if (queued > 0) this.deps.onNotificationsQueued?.()
    return session.id
  }

  /** On `tx`: stores the upload and queues its notifications; false when the request is gone. */
  private async storeUpload(
    tx: Executor,
    requestId: string,
    uploadId: string,
    init: RequestUploadInit,
    fields: RequestUploadFinalize,
  ): Promise<number | false> {
    const { fileRequests, requestUploads } = this.deps.db.tables
    const { downloads, notifyEmail, notifyWebhook, notifyWebhookSecret } = fileRequests
    const now = this.deps.now()
    const [moved] = await tx
      .update(fileRequests)
      .set({ usedBytes: increment(fileRequests.usedBytes, init.size) })
      .where(eq(fileRequests.id, requestId))
      .returning({ downloads, notifyEmail, notifyWebhook, notifyWebhookSecret })
    if (moved === undefined) return false
    await tx.insert(requestUploads).values({
      id: uploadId,
      requestId,
      size: init.size,
      fileCount: init.fileCount,
      salt: init.salt,
      ...fields,
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
    const { chunkSessions, sessions } = this.deps
    const valid = isUuid(uploadId)
    if (valid && (await chunkSessions.find(uploadId, requestId))) {
      await chunkSessions.remove([uploadId])
      recordUploadFailed('chunks')
      return
    }
    const open = valid ? sessions.get(uploadId, belongsTo(requestId)) : null
    if (open) return open.abort()
    const dormant = valid ? await sessions.findDormant(uploadId) : undefined
    if (dormant?.kind !== 'request' || dormant.requestId !== requestId) {
      // A request the operator took down answers its 410 here too, as on its other routes.
      const takedown = await requestTakedown(this.deps.tombstones, requestId)
      throw takedown ?? new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    }
    await sessions.endDormant(dormant)
  }

  /**
   * Undoes a stored upload whose sender never learned it (its socket died during the commit): the
   * entry and blob go and the slot is free again, as for a socket closed before `done` (spec:
   * Uploading into a request); the quota keeps the bytes, which did arrive. `note`: a note's slot.
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
}

/** The settings of a socket's session, which enforces its own progress rule. */
function sessionSpec(context: RequestUploadContext): NewSession<RequestUploadContext> {
  return { declaredSize: context.init.size, context, idleMs: null }
}

/** What a finalize reads of the context of a session uploading into a request. */
type RequestUploadEnd = Pick<RequestUploadContext, 'requestId' | 'init'>
