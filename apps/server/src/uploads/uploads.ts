/**
 * File uploads: validating what a client declares at init (all transports share it), turning a
 * committed session into a record, and the record's life after that: info, existence, counted
 * downloads, metadata set once, the password check and deletion (spec: File upload states).
 */
import {
  ERROR_MESSAGES,
  PASSWORD_ALGO,
  isOneOf,
  parseByteRange,
  parseIntegerStrict,
  type UploadInfoResponse,
  type UploadMetaFields,
} from '@fileshare/protocol'
import { and, eq, gt, gte, isNull, lte, notExists, or, sql } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'

import type { Config } from '../config.js'
import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { recordUploadFailed, recordUploadStarted } from '../metrics/recorder.js'
import { trackUploadSession } from '../metrics/track-session.js'
import type { BlobDelivery, BlobStore, OpenedBlob } from '../storage/blob-store.js'
import type { BlobJanitor, RetiredCount } from '../records/blob-janitor.js'
import { tokenUnderLockout, type Lockout } from '../limits/lockout.js'
import type { QuotaReservation, UploadQuota } from '../limits/quota.js'
import { DownloadCounter } from '../records/download-counter.js'
import { ReadGrants, type IssuedGrant } from '../access/read-grants.js'
import { takedownError, tombstoneColumns, type Tombstones } from '../records/tombstones.js'
import { deleteAsOwner } from '../records/owner-delete.js'
import { infoTimes, passwordFields } from '../records/public-info.js'
import { hashToken, judgeToken, tokenBytes, tokenMatches } from '../access/tokens.js'
import type { SessionScope, StoredChunkSessions } from '../sessions/stored-chunk-sessions.js'
import { finalizeStored } from '../sessions/stored-finalize.js'
import { decodeSpec, encodeSpec } from '../sessions/stored-contexts.js'
import { storedSessionStatus, type SessionStatus } from '../sessions/session-status.js'
import {
  sessionLimits,
  type NewSession,
  type SessionOutcome,
  type UploadSession,
  type UploadSessions,
} from '../sessions/upload-sessions.js'
import { canonicalSalt, decodeBase64Strict, invalid } from '../validation.js'

/** What a client declares before sending bytes: the same on every transport. */
export interface UploadSpec {
  size: number
  salt: string
  maxDownloads: number
  expireSec: number
  fileCount: number
  hasPassword: boolean
  passwordSalt: string | null
  passwordAlgo: string | null
  authTokenHash: Buffer
  ownerTokenHash: Buffer
}

/** How a session's bytes arrive: one request body, chunk requests, or a WebSocket. */
export type UploadTransport = 'single' | 'chunks' | 'ws'

/** The context of a normal upload session (request uploads carry another). */
export interface FileUploadContext {
  kind: 'file'
  spec: UploadSpec
  clientIp: string
  /** The declared size held against the client's quota until the session ends. */
  reservation: QuotaReservation
}

export function isFileUploadContext(context: unknown): context is FileUploadContext {
  return (context as FileUploadContext | undefined)?.kind === 'file'
}

/** Header names as they arrive (lower case); `size` names the header that carries the size. */
export type UploadHeaderValues = Record<string, string | undefined>

export interface UploadsDeps {
  config: Config
  db: Db
  blobs: BlobStore
  sessions: UploadSessions
  /** Chunked sessions in the database (PostgreSQL); without it they live in `sessions`. */
  storedChunks?: StoredChunkSessions | undefined
  quota: UploadQuota
  lockout: Lockout
  janitor: BlobJanitor
  tombstones: Tombstones
  now: () => number
}

export interface DownloadResult {
  size: number
  fileCount: number
  delivery: BlobDelivery
  /** The read grant asked for with the download; only a download the server sends has one. */
  grant?: IssuedGrant
}

/** Bytes `start` up to `end` (exclusive) of an upload, read under a grant without counting. */
export interface GrantedRead {
  size: number
  fileCount: number
  start: number
  end: number
  blob: OpenedBlob
}

const META_MAX_LENGTH = 200_000

export class UploadsService {
  private readonly counter: DownloadCounter
  private readonly grants: ReadGrants

  constructor(private readonly deps: UploadsDeps) {
    this.counter = new DownloadCounter(deps.db, deps.db.tables.uploads, 'upload', deps.blobs)
    this.grants = new ReadGrants({
      db: deps.db,
      ttlMs: deps.config.downloadGrantTtlSec * 1000,
      now: deps.now,
    })
    deps.sessions.registerKind<FileUploadContext>('upload', {
      restore: (row) => {
        const spec = decodeSpec(row.context)
        const reservation = deps.quota.restore(row.quota)
        const context: FileUploadContext = { kind: 'file', spec, clientIp: '', reservation }
        const transport = row.transport === 'ws' ? 'ws' : 'chunks'
        return { spec: this.sessionSpec(context, transport), onEnd: this.onEnd(reservation) }
      },
    })
  }

  /** The settings of a session; chunked sessions end after UPLOAD_SESSION_IDLE_SEC idle. */
  private sessionSpec(
    context: FileUploadContext,
    transport: UploadTransport,
  ): NewSession<FileUploadContext> {
    const { config } = this.deps
    return {
      declaredSize: context.spec.size,
      context,
      limits: sessionLimits(config, config.fileChunkMaxSize),
      idleMs: transport === 'ws' ? null : config.uploadSessionIdleSec * 1000,
    }
  }

  /** What ends with a session that did not commit: its hold on the quota. */
  private onEnd(reservation: QuotaReservation) {
    return async (outcome: SessionOutcome) => {
      if (outcome === 'aborted') await reservation.settle(false)
    }
  }

  /**
   * Validates the headers of `POST /api/upload`, `POST /api/upload/init` and the WebSocket `init`
   * frame (spec: POST /api/upload). `sizeHeader` is `content-length` or `x-content-length`.
   */
  parseSpec(headers: UploadHeaderValues, sizeHeader: string): UploadSpec {
    const { config } = this.deps
    const problems: Record<string, string> = {}
    const integer = (name: string, fallback?: number): number => {
      const value = headers[name]
      if (value === undefined && fallback !== undefined) return fallback
      try {
        return parseIntegerStrict(value, {}, name)
      } catch {
        problems[name] = 'must be a whole number'
        return NaN
      }
    }

    const auth = tokenBytes(headers['x-auth-token'])
    if (!auth) problems['x-auth-token'] = 'must be a base64url token'
    const owner = tokenBytes(headers['x-owner-token'])
    if (!owner) problems['x-owner-token'] = 'must be a base64url token'
    const salt = canonicalSalt(headers['x-salt'], [16, 32])
    if (salt === null) problems['x-salt'] = 'must be base64url of 16 or 32 bytes'

    const maxDownloads = integer('x-max-downloads')
    if (!Number.isNaN(maxDownloads) && !isOneOf(maxDownloads, config.fileDownloadOptions)) {
      problems['x-max-downloads'] = `must be one of ${config.fileDownloadOptions.join(', ')}`
    }
    const expireSec = integer('x-expire-sec')
    if (!Number.isNaN(expireSec) && !isOneOf(expireSec, config.fileExpireOptionsSec)) {
      problems['x-expire-sec'] = `must be one of ${config.fileExpireOptionsSec.join(', ')}`
    }
    const fileCount = integer('x-file-count', 1)
    if (!Number.isNaN(fileCount) && (fileCount < 1 || fileCount > config.fileMaxFilesPerUpload)) {
      problems['x-file-count'] = `must be from 1 to ${config.fileMaxFilesPerUpload}`
    }

    const hasPasswordText = headers['x-has-password']
    const hasPassword = hasPasswordText === 'true'
    if (hasPasswordText !== 'true' && hasPasswordText !== 'false') {
      problems['x-has-password'] = 'must be true or false'
    }
    const passwordSalt = canonicalSalt(headers['x-password-salt'], [16])
    const passwordAlgo = headers['x-password-algo'] ?? null
    if (hasPassword) {
      if (passwordSalt === null) {
        problems['x-password-salt'] = 'must be base64url of 16 bytes'
      }
      if (passwordAlgo !== PASSWORD_ALGO) problems['x-password-algo'] = `must be ${PASSWORD_ALGO}`
    }

    // A size too large to be a safe integer is still a size, and still too large.
    const declared = headers[sizeHeader]
    const size =
      declared !== undefined &&
      /^[0-9]{16,}$/.test(declared) &&
      !Number.isSafeInteger(Number(declared))
        ? Number.MAX_SAFE_INTEGER
        : integer(sizeHeader)
    if (Number.isNaN(size)) problems[sizeHeader] = 'must be the exact encrypted size in bytes'
    if (Object.keys(problems).length > 0) throw invalid(problems)
    if (size > config.fileMaxSize) throw new HttpError(413, ERROR_MESSAGES.fileTooLarge)
    if (size < 1) throw invalid({ [sizeHeader]: 'must be at least 1' })

    return {
      size,
      salt: salt!,
      maxDownloads,
      expireSec,
      fileCount,
      hasPassword,
      passwordSalt: hasPassword ? passwordSalt : null,
      passwordAlgo: hasPassword ? passwordAlgo : null,
      authTokenHash: hashToken(auth!),
      ownerTokenHash: hashToken(owner!),
    }
  }

  /** The chunked sessions kept in the database, when they are (PostgreSQL). */
  get storedChunks(): StoredChunkSessions | undefined {
    return this.deps.storedChunks
  }

  /**
   * Opens a session for a validated upload, holding its size against the client's quota. A
   * chunked or WebSocket session has a row; when `resumable` (its client asked) it outlives its
   * connection and a restart (docs/api.md, resume), otherwise it ends with them.
   */
  async begin(
    spec: UploadSpec,
    clientIp: string,
    transport: UploadTransport,
    resumable = false,
  ): Promise<UploadSession<FileUploadContext>> {
    const { sessions, quota } = this.deps
    const reservation = await quota.reserve(clientIp, spec.size)
    try {
      const context: FileUploadContext = { kind: 'file', spec, clientIp, reservation }
      const durable =
        transport === 'single'
          ? undefined
          : {
              kind: 'upload' as const,
              requestId: null,
              transport,
              context: encodeSpec(spec),
              quota: reservation.record,
              resumable,
            }
      const session = await sessions.create(this.sessionSpec(context, transport), durable)
      session.onEnd(this.onEnd(reservation))
      trackUploadSession(session, transport)
      return session
    } catch (error) {
      await reservation.settle(false)
      throw error
    }
  }

  /**
   * Resumes the unfinished upload `id` over a new WebSocket from the largest durable point at or
   * below `offset` (docs/api.md, resume): 404 for no such session, 401 for a wrong owner token,
   * 400 for an offset past the durable bytes (none of which changes anything), 409 while a live
   * connection holds it.
   */
  async resume(
    id: string,
    ownerToken: string | undefined,
    offset: number,
  ): Promise<UploadSession<FileUploadContext>> {
    const session = await this.deps.sessions.resume<FileUploadContext>(
      id,
      (row) => {
        if (row.kind !== 'upload') throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
        if (!tokenMatches(ownerToken, decodeSpec(row.context).ownerTokenHash)) {
          throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
        }
      },
      offset,
    )
    trackUploadSession(session, 'ws', false, 'resumed')
    return session
  }

  /**
   * The open chunked session `id`, or 404 `Upload not found`. A dormant one (its connection broke
   * off mid-chunk, or the server restarted and its client asked to resume) continues here at the
   * chunk its row records.
   */
  async session(id: string): Promise<UploadSession<FileUploadContext>> {
    const session = this.deps.sessions.get(id, isFileUploadContext)
    if (session) return session
    const resumed = await this.deps.sessions.resume<FileUploadContext>(
      id,
      (row) => {
        if (row.kind !== 'upload' || row.transport !== 'chunks') {
          throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
        }
      },
      'recorded',
    )
    trackUploadSession(resumed, 'chunks', false, 'resumed')
    return resumed
  }

  /**
   * Finalizes: the owner token must match, every declared byte must be there; then the blob is
   * committed and only after that the record created, so a crash between the two leaves an
   * orphan blob for the cleanup job and never a record without its blob.
   */
  async finalize(
    session: UploadSession<FileUploadContext>,
    ownerToken: string | undefined,
  ): Promise<string> {
    if (!tokenMatches(ownerToken, session.context.spec.ownerTokenHash)) {
      throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
    }
    await session.commit()
    const { reservation } = session.context
    await this.record(session.id, session.context.spec, (kept) => reservation.settle(kept))
    return session.id
  }

  /**
   * Creates the record of a committed blob; when that fails the blob is removed. `settle` ends the
   * quota reservation: kept once recorded, so no other upload slips in between.
   */
  private async record(
    id: string,
    spec: UploadSpec,
    settle: (kept: boolean) => Promise<void>,
  ): Promise<void> {
    try {
      await this.deps.db.query
        .insert(this.deps.db.tables.uploads)
        .values(uploadRow(id, spec, this.deps.now()))
    } catch (error) {
      await settle(false)
      await this.deps.janitor.remove(id)
      throw error
    }
    await settle(true)
  }

  /**
   * Opens a chunked upload (spec: POST /api/upload/init) and answers its id. With sessions in the
   * database the declared size is held against the quota on the session's row, so that whichever
   * instance ends the session ends the hold: recorded at finalize, given back otherwise.
   */
  async beginChunked(spec: UploadSpec, clientIp: string, resumable: boolean): Promise<string> {
    const stored = this.deps.storedChunks
    if (!stored) return (await this.begin(spec, clientIp, 'chunks', resumable)).id
    const held = await this.deps.quota.reserveHeld(clientIp, spec.size)
    const id = randomUUID()
    try {
      await stored.open(id, {
        declaredSize: spec.size,
        context: encodeSpec(spec),
        requestId: null,
        quota: held,
        resumable,
      })
    } catch (error) {
      if (held) await this.deps.quota.endHeld(this.deps.db.query, held, false)
      throw error
    }
    recordUploadStarted('chunks')
    return id
  }

  /** The chunks a normal upload's chunk route admits (stored-chunk-sessions.ts). */
  get chunkScope(): SessionScope {
    return { requestId: null, maxChunkSize: this.deps.config.fileChunkMaxSize }
  }

  /**
   * Finalizes a chunked upload on whichever instance the request reached (spec: POST
   * /api/upload/:id/finalize): the owner token first, then the session is claimed once, its
   * chunks joined into the blob, and the record created in the transaction that ends the session.
   */
  async finalizeChunked(id: string, ownerToken: string | undefined): Promise<string> {
    const stored = this.deps.storedChunks
    if (!stored) return this.finalize(await this.session(id), ownerToken)
    const spec = await this.storedSpec(stored, id, ownerToken)
    await finalizeStored({ stored, janitor: this.deps.janitor }, id, null, async (tx) => {
      await tx.insert(this.deps.db.tables.uploads).values(uploadRow(id, spec, this.deps.now()))
    })
    return id
  }

  /** The spec of open stored session `id`: 404 when there is none, 401 for a wrong owner token. */
  private async storedSpec(
    stored: StoredChunkSessions,
    id: string,
    ownerToken: string | undefined,
  ): Promise<UploadSpec> {
    const open = await stored.find(id, null)
    if (!open) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    const spec = decodeSpec(open.context)
    if (!tokenMatches(ownerToken, spec.ownerTokenHash)) {
      throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
    }
    return spec
  }

  /**
   * How far the stored session `id` got (GET /api/upload/:id/status): null when there is none
   * (another provider may have it), 401 for a wrong owner token, compared in constant time
   * against the stored hash.
   */
  async storedStatus(id: string, ownerToken: string | undefined): Promise<SessionStatus | null> {
    const stored = this.deps.storedChunks
    const open = stored && (await stored.find(id, null))
    if (!open) return null
    if (!tokenMatches(ownerToken, decodeSpec(open.context).ownerTokenHash)) {
      throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
    }
    return storedSessionStatus(open)
  }

  /** The share address of an upload, without the key: clients append the fragment. */
  shareUrl(id: string): string {
    return `${this.deps.config.baseUrl}/d/${id}`
  }

  /** The record of a stored upload, or undefined. */
  private async stored(id: string) {
    const { uploads } = this.deps.db.tables
    const [row] = await this.deps.db.query.select().from(uploads).where(eq(uploads.id, id))
    return row
  }

  /**
   * The upload; 410 when the cleanup job or the operator removed it (tombstones.ts), else 404
   * when unknown.
   */
  private async find(id: string) {
    const row = await this.stored(id)
    if (row) return row
    const removed = await this.deps.tombstones.find('upload', id)
    if (removed)
      throw takedownError(removed) ?? new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
  }

  private isAvailable(row: {
    expiresAt: number
    downloadCount: number
    maxDownloads: number
  }): boolean {
    return row.expiresAt > this.deps.now() && row.downloadCount < row.maxDownloads
  }

  /**
   * Public info (spec: GET /api/info/:id); 404 unknown, 410 expired or used up. A protected
   * upload's metadata stays out of it: with the link, that ciphertext would let anyone test
   * password guesses offline, past the lockout. checkPassword hands it out instead.
   */
  async info(id: string): Promise<UploadInfoResponse> {
    const row = await this.find(id)
    if (!this.isAvailable(row)) throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    const common = {
      id: row.id,
      size: row.size,
      salt: row.salt,
      fileCount: row.fileCount,
      maxDownloads: row.maxDownloads,
      downloadCount: row.downloadCount,
      ...infoTimes(row),
    }
    const password = passwordFields(row)
    return password.hasPassword
      ? { ...common, ...password }
      : { ...common, ...password, encryptedMeta: row.encryptedMeta, nonce: row.metaNonce }
  }

  /** Whether an upload can still be downloaded (spec: GET /api/exists/:id). */
  async exists(id: string): Promise<boolean> {
    const row = await this.stored(id)
    return row !== undefined && this.isAvailable(row)
  }

  /**
   * Admits the auth token of a download. On a password-protected upload the lockout of
   * `upload:<id>` applies here as on the password check: a wrong token is a password guess
   * whichever route it is sent to.
   */
  private async admitReader(
    row: { id: string; hasPassword: boolean; authTokenHash: Buffer },
    authToken: string | undefined,
    clientIp: string,
  ): Promise<void> {
    const guard = { key: `upload:${row.id}`, clientIp, hasPassword: row.hasPassword }
    const token = judgeToken(authToken, row.authTokenHash)
    if (!(await tokenUnderLockout(this.deps.lockout, guard, token))) {
      throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingAuthToken)
    }
  }

  /**
   * Counts one download atomically (the increment happens only while the count is below the
   * limit and the upload has not expired), then opens the blob or, on S3, presigns its URL. With
   * `withGrant`, a download the server sends also issues a read grant (docs/api.md); a presigned
   * URL reads ranges itself.
   */
  async download(
    id: string,
    authToken: string | undefined,
    clientIp: string,
    withGrant = false,
  ): Promise<DownloadResult> {
    const row = await this.find(id)
    await this.admitReader(row, authToken, clientIp)
    const delivery = await this.counter.deliver(id, this.deps.now())
    const result = { size: row.size, fileCount: row.fileCount, delivery }
    if (!withGrant || !('blob' in delivery)) return result
    try {
      return { ...result, grant: await this.grants.issue(id) }
    } catch (error) {
      await delivery.blob.close()
      throw error
    }
  }

  /**
   * Reads a range of an upload under a read grant, without counting (docs/api.md, Read grants):
   * 404 or 410 as the upload's other routes, 401 for the auth token, 410 once the upload expired
   * (a download limit reached since does not end the grant), 401 or 410 for the grant, 416 for
   * a `range` that is not one satisfiable byte range. Without `range`, the whole blob.
   */
  async readGranted(
    id: string,
    authToken: string | undefined,
    grant: string | undefined,
    range: string | undefined,
    clientIp: string,
  ): Promise<GrantedRead> {
    const row = await this.find(id)
    await this.admitReader(row, authToken, clientIp)
    if (row.expiresAt <= this.deps.now()) {
      throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    }
    await this.grants.admit(id, grant)
    const bounds =
      range === undefined ? { start: 0, end: row.size } : parseByteRange(range, row.size)
    if (bounds === null || bounds.start >= bounds.end) {
      throw new HttpError(416, ERROR_MESSAGES.rangeNotSatisfiable, {
        headers: { 'Content-Range': `bytes */${row.size}` },
      })
    }
    const { openRange } = this.deps.blobs
    if (!openRange) throw new HttpError(401, ERROR_MESSAGES.invalidReadGrant)
    const blob = await openRange.call(this.deps.blobs, id, bounds.start, bounds.end)
    return { size: row.size, fileCount: row.fileCount, ...bounds, blob }
  }

  /**
   * Cleanup (spec: File upload states, "cleanup job"): deletes expired and used-up uploads,
   * leaving a tombstone for each so their ids go on answering 410 (tombstones.ts), then removes
   * their blobs (record first, so an id never points at a missing blob), holding a blob whose
   * presigned URL may still be fetched (blob-janitor.ts). Returns how many went, how many blob
   * removals failed and were queued for later, and how many blobs are held.
   */
  async retireFinished(): Promise<RetiredCount> {
    const now = this.deps.now()
    const { uploads } = this.deps.db.tables
    const { readGrants } = this.deps.db.tables
    const { removed, blobs } = await this.deps.db.transaction(async (tx) => {
      await this.grants.sweep(tx, now)
      // A used-up upload stays while a read grant for it lasts: the grant is for a download
      // already counted. It answers 410 to everything else meanwhile.
      const granted = tx
        .select({ one: sql`1` })
        .from(readGrants)
        .where(and(eq(readGrants.uploadId, uploads.id), gt(readGrants.expiresAt, now)))
      const rows = await tx
        .delete(uploads)
        .where(
          or(
            lte(uploads.expiresAt, now),
            and(gte(uploads.downloadCount, uploads.maxDownloads), notExists(granted)),
          ),
        )
        .returning({ ...tombstoneColumns(uploads), lastDownloadAt: uploads.lastDownloadAt })
      await this.deps.tombstones.bury(tx, 'upload', rows)
      return { removed: rows.length, blobs: await this.deps.janitor.holdForUrls(tx, rows) }
    })
    const queued = await this.deps.janitor.removeAll(blobs.removeNow)
    return { removed, queued, held: blobs.held }
  }

  /** Saves the encrypted metadata once (spec: POST /api/meta/:id). */
  async saveMeta(id: string, ownerToken: string | undefined, body: unknown): Promise<void> {
    const row = await this.find(id)
    if (!tokenMatches(ownerToken, row.ownerTokenHash)) {
      throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
    }
    const { encryptedMeta, nonce } = (
      typeof body === 'object' && body !== null ? body : {}
    ) as Record<string, unknown>
    const problems: Record<string, string> = {}
    const nonEmptyBase64 = (value: unknown, field: string): value is string => {
      if (typeof value === 'string' && value.length <= META_MAX_LENGTH) {
        if (decodeBase64Strict(value) !== null) return true
      }
      problems[field] = 'must be non-empty base64'
      return false
    }
    const metaOk = nonEmptyBase64(encryptedMeta, 'encryptedMeta')
    const nonceOk = nonEmptyBase64(nonce, 'nonce')
    if (!metaOk || !nonceOk) throw invalid(problems)
    const { uploads } = this.deps.db.tables
    const [saved] = await this.deps.db.query
      .update(uploads)
      .set({ encryptedMeta: encryptedMeta as string, metaNonce: nonce as string })
      .where(and(eq(uploads.id, id), isNull(uploads.encryptedMeta)))
      .returning({ id: uploads.id })
    if (saved === undefined) throw new HttpError(409, ERROR_MESSAGES.metadataAlreadySet)
  }

  /**
   * Checks the auth token of a password-protected upload without counting a download
   * (spec: POST /api/password/:id) and answers its metadata, which info withholds: 404, 410,
   * 400 (no password), then the lockout of `upload:<id>` as on every password route (a
   * well-formed wrong token counts), then 401.
   */
  async checkPassword(
    id: string,
    authToken: string | undefined,
    clientIp: string,
  ): Promise<UploadMetaFields> {
    const row = await this.find(id)
    if (!this.isAvailable(row)) throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    if (!row.hasPassword) throw new HttpError(400, ERROR_MESSAGES.uploadNotPasswordProtected)
    const guard = { key: `upload:${id}`, clientIp, hasPassword: true }
    const token = judgeToken(authToken, row.authTokenHash)
    if (!(await tokenUnderLockout(this.deps.lockout, guard, token))) {
      throw new HttpError(401, ERROR_MESSAGES.invalidPassword)
    }
    return { encryptedMeta: row.encryptedMeta, nonce: row.metaNonce }
  }

  /**
   * Deletes the record first, then the blob best effort (spec: DELETE /api/upload/:id). An id
   * that is still an unfinished session is cancelled the same way, with the same owner token.
   * The tombstone of an expired upload goes too; one of a takedown stays, answering 410.
   */
  async delete(id: string, ownerToken: string | undefined): Promise<void> {
    const stored = this.deps.storedChunks
    if (stored && (await stored.find(id, null))) {
      await this.storedSpec(stored, id, ownerToken)
      await stored.remove([id])
      recordUploadFailed('chunks')
      return
    }
    const session = this.deps.sessions.get(id, isFileUploadContext)
    if (session) {
      if (!tokenMatches(ownerToken, session.context.spec.ownerTokenHash)) {
        throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
      }
      await session.abort()
      return
    }
    const dormant = await this.deps.sessions.findDormant(id)
    if (dormant?.kind === 'upload') {
      if (!tokenMatches(ownerToken, decodeSpec(dormant.context).ownerTokenHash)) {
        throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
      }
      await this.deps.sessions.endDormant(dormant)
      return
    }
    const upload = {
      kind: 'upload' as const,
      id,
      row: await this.stored(id),
      deleteRow: async () => {
        const { uploads } = this.deps.db.tables
        await this.deps.db.query.delete(uploads).where(eq(uploads.id, id))
        await this.deps.janitor.remove(id)
        return true
      },
      messages: {
        notFound: ERROR_MESSAGES.uploadNotFound,
        wrongOwner: ERROR_MESSAGES.invalidOrMissingOwnerToken,
      },
    }
    await deleteAsOwner(this.deps.tombstones, upload, ownerToken)
  }
}

/** The columns of an upload's record. */
function uploadRow(id: string, spec: UploadSpec, now: number) {
  return {
    id,
    size: spec.size,
    salt: spec.salt,
    fileCount: spec.fileCount,
    maxDownloads: spec.maxDownloads,
    hasPassword: spec.hasPassword,
    passwordSalt: spec.passwordSalt,
    passwordAlgo: spec.passwordAlgo,
    authTokenHash: spec.authTokenHash,
    ownerTokenHash: spec.ownerTokenHash,
    createdAt: now,
    expiresAt: now + spec.expireSec * 1000,
  }
}
