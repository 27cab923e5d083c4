/**
 * A stored upload's life after its session committed (spec: File upload states): public info,
 * counted downloads and read grants, metadata set once, the password check, and retirement.
 * May touch: table uploads; the lockout, tombstones, counted reads and blob removal through their
 * modules.
 */
import { ERROR_MESSAGES, type UploadInfoResponse, type UploadMetaFields } from '@fileshare/protocol'
import { and, eq, isNull } from 'drizzle-orm'

import type { Config } from '../config.js'
import type { Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import type { BlobStore } from '../storage/blob-store.js'
import type { BlobJanitor, RetiredCount } from '../records/blob-janitor.js'
import { tokenUnderLockout, type Lockout } from '../limits/lockout.js'
import type { UploadQuota } from '../limits/quota.js'
import { CountedReads, type DownloadResult, type GrantedRead } from '../records/counted-reads.js'
import { takedownError, tombstoneColumns, type Tombstones } from '../records/tombstones.js'
import { infoTimes, passwordFields } from '../records/public-info.js'
import { judgeToken, tokenMatches } from '../access/tokens.js'
import type { ChunkSessions } from '../sessions/chunk-sessions.js'
import { type UploadSessions } from '../sessions/upload-sessions.js'
import { decodeBase64Strict, invalid } from '../validation.js'

export interface UploadsDeps {
  config: Config
  db: Db
  blobs: BlobStore
  sessions: UploadSessions
  chunkSessions: ChunkSessions
  quota: UploadQuota
  lockout: Lockout
  janitor: BlobJanitor
  tombstones: Tombstones
  now: () => number
}

const META_MAX_LENGTH = 200_000

export class UploadRecords {
  private readonly reads: CountedReads

  constructor(protected readonly deps: UploadsDeps) {
    const { db, blobs, now } = deps
    const grantTtlMs = deps.config.downloadGrantTtlSec * 1000
    this.reads = new CountedReads(
      { db, blobs, janitor: deps.janitor, grantTtlMs, now },
      { table: db.tables.uploads, name: 'upload', holder: 'uploadId' },
    )
  }

  /** The share address of an upload, without the key: clients append the fragment. */
  shareUrl(id: string): string {
    return `${this.deps.config.baseUrl}/d/${id}`
  }

  protected async stored(id: string) {
    const { uploads } = this.deps.db.tables
    const [row] = await this.deps.db.query.select().from(uploads).where(eq(uploads.id, id))
    return row
  }

  /** The upload; 410 when the cleanup job or the operator removed it, else 404 when unknown. */
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
   * Public info (spec: GET /api/info/:id). A protected upload's metadata stays out of it: with the
   * link, that ciphertext would let anyone test password guesses offline, past the lockout.
   */
  async info(id: string): Promise<UploadInfoResponse> {
    const row = await this.find(id)
    if (!this.isAvailable(row)) throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    const { size, salt, fileCount, maxDownloads, downloadCount } = row
    const common = { id, size, salt, fileCount, maxDownloads, downloadCount, ...infoTimes(row) }
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
   * Admits the auth token of a read, else 401 `message`. On a protected upload the lockout of
   * `upload:<id>` applies: a wrong token is a password guess whichever route it is sent to.
   */
  private async admitReader(
    row: { id: string; hasPassword: boolean; authTokenHash: Buffer },
    authToken: string | undefined,
    clientIp: string,
    message: string = ERROR_MESSAGES.invalidOrMissingAuthToken,
  ): Promise<void> {
    const guard = { key: `upload:${row.id}`, clientIp, hasPassword: row.hasPassword }
    const token = judgeToken(authToken, row.authTokenHash)
    if (!(await tokenUnderLockout(this.deps.lockout, guard, token))) {
      throw new HttpError(401, message)
    }
  }

  /**
   * Counts one download atomically (counted-reads.ts), then opens the blob or, on S3, presigns
   * its URL; `withGrant` also issues a read grant for a download the server sends (docs/api.md).
   */
  async download(
    id: string,
    authToken: string | undefined,
    clientIp: string,
    withGrant = false,
    range?: string,
  ): Promise<DownloadResult> {
    const row = await this.find(id)
    await this.admitReader(row, authToken, clientIp)
    return this.reads.deliver(id, row, withGrant, range)
  }

  /**
   * Reads a range of an upload under a read grant, without counting (docs/api.md, Read grants):
   * 410 once it expired (a download limit reached since does not end the grant).
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
    return this.reads.readGranted(id, row, grant, range)
  }

  /**
   * Cleanup (spec: File upload states, "cleanup job"): deletes expired and used-up uploads,
   * leaving tombstones so their ids answer 410, then their blobs (counted-reads.ts). A used-up
   * upload stays while a read grant for it lasts; it answers 410 to everything else meanwhile.
   */
  retireFinished(): Promise<RetiredCount> {
    const { uploads } = this.deps.db.tables
    return this.reads.retireFinished(async (tx, finished) => {
      const rows = await tx
        .delete(uploads)
        .where(finished)
        .returning({ ...tombstoneColumns(uploads), lastDownloadAt: uploads.lastDownloadAt })
      await this.deps.tombstones.bury(tx, 'upload', rows)
      return rows
    })
  }

  /** Saves the encrypted metadata once (spec: POST /api/meta/:id). */
  async saveMeta(id: string, ownerToken: string | undefined, body: unknown): Promise<void> {
    const row = await this.find(id)
    requireOwner(ownerToken, row.ownerTokenHash)
    const { encryptedMeta, nonce } = (
      typeof body === 'object' && body !== null ? body : {}
    ) as Record<string, unknown>
    const problems: Record<string, string> = {}
    for (const [field, value] of Object.entries({ encryptedMeta, nonce })) {
      const ok = typeof value === 'string' && value.length <= META_MAX_LENGTH
      if (!ok || decodeBase64Strict(value) === null) problems[field] = 'must be non-empty base64'
    }
    if (Object.keys(problems).length > 0) throw invalid(problems)
    const { uploads } = this.deps.db.tables
    const [saved] = await this.deps.db.query
      .update(uploads)
      .set({ encryptedMeta: encryptedMeta as string, metaNonce: nonce as string })
      .where(and(eq(uploads.id, id), isNull(uploads.encryptedMeta)))
      .returning({ id: uploads.id })
    if (saved === undefined) throw new HttpError(409, ERROR_MESSAGES.metadataAlreadySet)
  }

  /** The password check (spec: POST /api/password/:id): answers the metadata info withholds. */
  async checkPassword(
    id: string,
    authToken: string | undefined,
    clientIp: string,
  ): Promise<UploadMetaFields> {
    const row = await this.find(id)
    if (!this.isAvailable(row)) throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    if (!row.hasPassword) throw new HttpError(400, ERROR_MESSAGES.uploadNotPasswordProtected)
    await this.admitReader(row, authToken, clientIp, ERROR_MESSAGES.invalidPassword)
    return { encryptedMeta: row.encryptedMeta, nonce: row.metaNonce }
  }
}

/** 401 unless `ownerToken` is the upload's owner token (spec: `Invalid or missing owner token`). */
export function requireOwner(ownerToken: string | undefined, hash: Uint8Array): void {
  if (!tokenMatches(ownerToken, hash)) {
    throw new HttpError(401, ERROR_MESSAGES.invalidOrMissingOwnerToken)
  }
}
