/**
 * Builds every service of the server once, from the config, the database and the blob store.
 * May touch: the log (errors of background work); it starts no timer and opens nothing, the
 * services it builds name their own.
 */
import { uploadChunkSize, type Config } from '../config.js'
import type { Db } from '../db/client.js'
import type { Logger } from '../logger.js'
import type { BlobStore } from '../storage/blob-store.js'
import { ApiTokens } from '../access/api-tokens.js'
import { BlobJanitor } from '../records/blob-janitor.js'
import { InboxService } from '../requests/inbox.js'
import { DbLockout, MemoryLockout, type Lockout } from '../limits/lockout.js'
import { DailyIpHash, DbUploadQuota } from '../limits/quota.js'
import { RateLimiter, type RateLimit } from '../limits/rate-limiter.js'
import { SharedRateLimiter } from '../limits/shared-rate-limiter.js'
import { NotesService } from '../notes/notes.js'
import { abuseNotifier } from '../notify/abuse-notice.js'
import { AbuseDigest } from '../notify/abuse-digest.js'
import { smtpMailer } from '../notify/email.js'
import { NotificationOutbox } from '../notify/outbox.js'
import { NotificationWorker } from '../notify/worker.js'
import { ReportsService } from '../ops/reports.js'
import { RequestsService } from '../requests/requests.js'
import { SessionStatusService } from '../sessions/session-status.js'
import { Takedown } from '../ops/takedown.js'
import { Tombstones } from '../records/tombstones.js'
import { SessionHoldEnds } from '../sessions/session-holds.js'
import { ChunkSessions } from '../sessions/chunk-sessions.js'
import { SessionRecords } from '../sessions/session-records.js'
import { UploadSessions } from '../sessions/upload-sessions.js'
import { UploadsService } from '../uploads/uploads.js'

export interface Services {
  sessions: UploadSessions
  /** The rows of every unfinished session, of either writer (upload_sessions). */
  sessionRows: SessionRecords
  /** Chunked sessions, kept in the database so that any instance takes any chunk. */
  chunkSessions: ChunkSessions
  uploads: UploadsService
  notes: NotesService
  requests: RequestsService
  inbox: InboxService
  /** How far an unfinished upload got, of either writer (session-status.ts). */
  sessionStatus: SessionStatusService
  /** Keys of every session that may still write, on any instance: the sweeps by age skip them. */
  liveSessionKeys: () => Promise<ReadonlySet<string>>
  quota: DbUploadQuota
  lockout: Lockout
  rateLimiter: RateLimit
  janitor: BlobJanitor
  tombstones: Tombstones
  /** Sends the notifications of finished request uploads; started and stopped by server.ts. */
  notifier: NotificationWorker
  /** The operator's removals (fileshare-admin rm). */
  takedown: Takedown
  reports: ReportsService
  /** The per-network limit of abuse reports, pruned by the cleanup job with the others. */
  reportLimiter: RateLimit
  /** Mails new abuse reports to ABUSE_EMAIL; the cleanup job's leader runs it. Null without. */
  abuseDigest: AbuseDigest | null
  apiTokens: ApiTokens
}

export async function createServices(
  config: Config,
  db: Db,
  blobs: BlobStore,
  logger: Logger,
  now: () => number,
): Promise<Services> {
  const onError = (error: unknown) =>
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  const ipHash = await DailyIpHash.load(db)
  const quota = new DbUploadQuota({
    db,
    ipHash,
    quotaBytes: config.uploadQuotaBytes,
    windowSec: config.uploadQuotaWindowSec,
    now,
  })
  // Where every session's quota hold and request slot end, streamed and stored alike.
  const holdEnds = new SessionHoldEnds(db, blobs, quota)
  const sessionRows = new SessionRecords(db, now)
  const sessions = new UploadSessions({
    blobs,
    now,
    onError,
    records: sessionRows,
    holdEnds,
  })
  const janitor = new BlobJanitor(db, blobs, now, onError)
  // Chunked sessions live in the database on either dialect, so that any instance takes any chunk.
  const chunkSessions = new ChunkSessions(
    db,
    blobs,
    {
      window: config.fileUploadConcurrentChunks,
      maxChunksInFlight: config.fileUploadConcurrentChunks + 1,
      speedLimit: config.fileUploadSpeedLimit,
      bufferBytes: config.fileUploadChunkBuffer,
    },
    holdEnds,
    now,
    sessions.holder,
    uploadChunkSize(config),
  )
  // On PostgreSQL several instances may share the database, and so these limits; on SQLite the
  // one instance keeps them in memory, which costs a request no write.
  const shared = db.dialect === 'postgres'
  const lockoutOptions = {
    maxAttempts: config.passwordMaxAttempts,
    lockoutMs: config.passwordLockoutMs,
    now,
  }
  const lockout = shared
    ? new DbLockout({ ...lockoutOptions, db, ipHash })
    : new MemoryLockout(lockoutOptions)
  const limitOptions = { windowMs: config.rateLimitWindowMs, max: config.rateLimitMax, now }
  const rateLimiter = shared
    ? new SharedRateLimiter({ ...limitOptions, db, ipHash })
    : new RateLimiter(limitOptions)
  // The same window as the `/api` limit, so both share the windows table and its pruning.
  const reportOptions = { ...limitOptions, max: config.reportRateLimitMax }
  const reportLimiter = shared
    ? new SharedRateLimiter({ ...reportOptions, db, ipHash })
    : new RateLimiter(reportOptions)
  const tombstones = new Tombstones(db)
  // What the two upload services share: the session layer, the quota, the lockout, blob removal.
  const uploadDeps = { config, db, blobs, sessions, quota, lockout, janitor, now }
  const uploads = new UploadsService({ ...uploadDeps, chunkSessions, tombstones })
  const notes = new NotesService({ config, db, lockout, tombstones, now })
  const outbox = new NotificationOutbox(db, now)
  const { smtpUrl, from, allowPrivate, abuseEmail } = config.notify
  const mailer = smtpUrl === null ? null : smtpMailer(smtpUrl, from)
  const title = config.customTitle
  const deadlineMs = config.notify.deliveryTimeoutMs
  const notifier = new NotificationWorker({
    outbox,
    mailer,
    allowPrivate,
    title,
    logger,
    deadlineMs,
  })
  const requests = new RequestsService({
    ...uploadDeps,
    chunkSessions,
    ipHash,
    tombstones,
    onError,
    outbox,
    onNotificationsQueued: () => notifier.wake(),
  })
  // Where GET /api/upload/:id/status and its request twin look: the one row of either writer.
  const sessionStatus = new SessionStatusService(sessionRows, sessions, tombstones)
  const inbox = new InboxService({
    db,
    blobs,
    sessions,
    chunkSessions,
    lockout,
    janitor,
    tombstones,
    grantTtlMs: config.downloadGrantTtlSec * 1000,
    now,
  })
  const takedown = new Takedown({ db, tombstones, janitor, sessions, chunkSessions, now })
  const reports = new ReportsService({
    db,
    limiter: reportLimiter,
    dailyLimit: config.reportDailyLimit,
    ipHash,
    now,
    notify: abuseNotifier(logger),
  })
  const abuseDigest =
    abuseEmail === null || mailer === null
      ? null
      : new AbuseDigest({
          db,
          mailer,
          to: abuseEmail,
          title,
          intervalMs: config.notify.abuseDigestIntervalSec * 1000,
          now,
        })
  return {
    sessions,
    sessionRows,
    chunkSessions,
    uploads,
    notes,
    requests,
    inbox,
    sessionStatus,
    liveSessionKeys: () => sessions.resumableIds(),
    quota,
    lockout,
    rateLimiter,
    janitor,
    tombstones,
    notifier,
    takedown,
    reports,
    reportLimiter,
    abuseDigest,
    apiTokens: new ApiTokens({ db, now }),
  }
}
