/**
 * File requests themselves (spec: File request record, POST /api/request, GET /api/request/:id):
 * creation under the daily limits, the limit a client has left, the sender's view, and the cleanup
 * of finished requests and past daily counts. Uploads into a request are requests.ts. It never
 * touches a session.
 * May touch: tables file_requests, request_uploads (read), request_daily_counts.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import {
  ERROR_MESSAGES,
  toBase64Url,
  type CreateFileRequestResponse,
  type FileRequestLimitResponse,
  type FileRequestResponse,
} from '@fileshare/protocol'
import { and, eq, lt, lte, notExists } from 'drizzle-orm'

import { loginEnabled, type Config } from '../config.js'
import { deleteRows, type Db } from '../db/client.js'
import { tooManyRequests } from '../http-error.js'
import type { BlobJanitor } from '../records/blob-janitor.js'
import { countToday, DAY_MS, dayStart } from '../limits/daily-counts.js'
import type { DailyIpHash, UploadQuota } from '../limits/quota.js'
import type { NotificationOutbox } from '../notify/outbox.js'
import type { Tombstones } from '../records/tombstones.js'
import { findRequest, isRequestOpen, iso, requestNotFound } from './request-records.js'
import { parseCreateBody, parseRequestToken } from './request-validation.js'
import { tokenMatches } from '../access/tokens.js'
import { invalid } from '../validation.js'
import type { ChunkSessions } from '../sessions/chunk-sessions.js'
import { type UploadSessions } from '../sessions/upload-sessions.js'

/** Who creates a request: the daily limit counts per login user when there is one, else per IP. */
export interface RequestClient {
  ip: string
  /** The OIDC `sub` of the caller's login, or null without one. */
  user: string | null
  /** Reads the login `sub` when `user` was not read (null without one), for what needs it. */
  login?: () => Promise<string | null>
}

export interface RequestsDeps {
  config: Config
  db: Db
  sessions: UploadSessions
  quota: UploadQuota
  janitor: BlobJanitor
  chunkSessions: ChunkSessions
  ipHash: DailyIpHash
  tombstones: Tombstones
  now: () => number
  outbox: NotificationOutbox
  /** Called once notifications were queued, so a worker may send them at once. */
  onNotificationsQueued?: () => void
}

/** Bytes of a request's webhook signing key. */
const NOTIFY_SECRET_BYTES = 32

export class FileRequests {
  constructor(protected readonly deps: RequestsDeps) {}

  /**
   * Creates a request (spec: POST /api/request): 400 for an invalid body, 429 when the caller's
   * FILE_REQUEST_DAILY_LIMIT or NOTIFY_EMAIL_DAILY_LIMIT is used up. The counts and the record
   * are one transaction, so a refused or failed creation counts nothing.
   */
  async create(body: unknown, client: RequestClient): Promise<CreateFileRequestResponse> {
    const { config, db } = this.deps
    const { fileRequests } = db.tables
    const { expireSec, ...fields } = parseCreateBody(body, config)
    const now = this.deps.now()
    const id = randomUUID()
    const closesAt = now + expireSec * 1000
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
        if (wait !== null) throw tooManyRequests(ERROR_MESSAGES.dailyRequestLimitReached, wait)
      }
      // Each address is typed by the creator, unverified: bounded per creator, with the count
      // of mails per request (storeUpload), so the server cannot be used to flood an inbox.
      if (fields.notifyEmail !== null && emailLimit > 0) {
        const wait = await countToday(tx, db.tables, emailKey, emailLimit, now)
        if (wait !== null) throw tooManyRequests(ERROR_MESSAGES.notifyEmailLimitReached, wait)
      }
      await tx
        .insert(fileRequests)
        .values({ id, ...fields, createdAt: now, closesAt, notifyWebhookSecret: webhookSecret })
    })
    return {
      id,
      closesAt: iso(closesAt),
      ...(webhookSecret === null ? {} : { notifyWebhookSecret: toBase64Url(webhookSecret) }),
    }
  }

  /** What `GET /api/request/limit` reports; counts nothing. `resetsAt` is the next UTC midnight. */
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

  /** The sender's view (spec: GET /api/request/:id); slots of running uploads are not left. */
  async read(id: string, uploadToken: string | undefined): Promise<FileRequestResponse> {
    const token = parseRequestToken(uploadToken)
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

  /**
   * Cleanup: deletes requests that can hold nothing any more: `closesAt` lies more than
   * FILE_REQUEST_RETENTION_SEC back (so their uploads are gone too) and no upload is left or
   * running. A request closed early waits for its `closesAt`, since the close time is not kept.
   */
  async removeFinishedRequests(): Promise<number> {
    const { db, config } = this.deps
    const { fileRequests, requestUploads } = db.tables
    const cutoff = this.deps.now() - config.fileRequestRetentionSec * 1000
    const uploadLeft = db.query
      .select({ id: requestUploads.id })
      .from(requestUploads)
      .where(eq(requestUploads.requestId, fileRequests.id))
    const finished = and(
      lte(fileRequests.closesAt, cutoff),
      eq(fileRequests.reservedUploads, 0),
      notExists(uploadLeft),
    )
    return deleteRows(db.query, fileRequests, finished)
  }

  /** Cleanup: deletes the daily creation counts of past days. */
  async pruneDailyCounts(): Promise<number> {
    const { requestDailyCounts } = this.deps.db.tables
    const past = lt(requestDailyCounts.dayStart, dayStart(this.deps.now()))
    return deleteRows(this.deps.db.query, requestDailyCounts, past)
  }

  protected async requestExists(id: string): Promise<boolean> {
    const { fileRequests } = this.deps.db.tables
    const [row] = await this.deps.db.query
      .select({ id: fileRequests.id })
      .from(fileRequests)
      .where(eq(fileRequests.id, id))
    return row !== undefined
  }

  /** `user:<sub>` with a login, otherwise `ip:` and the IP's HMAC under the day's key. */
  private clientKey(client: RequestClient, day: number): string {
    return client.user !== null
      ? `user:${client.user}`
      : `ip:${this.deps.ipHash.of(client.ip, day)}`
  }
}
