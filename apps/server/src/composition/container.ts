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

/** Every service of the server, as createServices builds them. */
export type Services = Awaited<ReturnType<typeof createServices>>

export async function createServices(
  config: Config,
  db: Db,
  blobs: BlobStore,
  logger: Logger,
  now: () => number,
) {
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
  const lockout: Lockout = shared
    ? new DbLockout({ ...lockoutOptions, db, ipHash })
    : new MemoryLockout(lockoutOptions)
  // Every limit has the `/api` limit's window, so all share the windows table and its pruning.
  const limiter = (max: number): RateLimit => {
    const options = { windowMs: config.rateLimitWindowMs, max, now }
    return shared ? new SharedRateLimiter({ ...options, db, ipHash }) : new RateLimiter(options)
  }
  const rateLimiter = limiter(config.rateLimitMax)
  // The per-network limit of abuse reports, pruned by the cleanup job with the others.
  const reportLimiter = limiter(config.reportRateLimitMax)
  const tombstones = new Tombstones(db)
  // What the two upload services share: the session layer, the quota, the lockout, blob removal.
  const uploadDeps = { config, db, blobs, sessions, quota, lockout, janitor, now }
  const uploads = new UploadsService({ ...uploadDeps, chunkSessions, tombstones })
  const outbox = new NotificationOutbox(db, now)
  const { smtpUrl, from, allowPrivate, abuseEmail } = config.notify
  const mailer = smtpUrl === null ? null : smtpMailer(smtpUrl, from)
  const title = config.customTitle
  // Started and stopped by server.ts.
  const notifier = new NotificationWorker({
    outbox,
    mailer,
    allowPrivate,
    title,
    logger,
    deadlineMs: config.notify.deliveryTimeoutMs,
  })
  const requests = new RequestsService({
    ...uploadDeps,
    chunkSessions,
    ipHash,
    tombstones,
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
  return {
    sessions,
    sessionRows,
    chunkSessions,
    uploads,
    notes: new NotesService({ config, db, lockout, tombstones, now }),
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
    takedown: new Takedown({ db, tombstones, janitor, sessions, chunkSessions, now }),
    reports: new ReportsService({
      db,
      limiter: reportLimiter,
      dailyLimit: config.reportDailyLimit,
      ipHash,
      now,
      logger,
    }),
    reportLimiter,
    // Mails new abuse reports to ABUSE_EMAIL; the cleanup job's leader runs it.
    abuseDigest:
      abuseEmail === null || mailer === null
        ? null
        : new AbuseDigest({
            db,
            mailer,
            to: abuseEmail,
            title,
            intervalMs: config.notify.abuseDigestIntervalSec * 1000,
            now,
          }),
    apiTokens: new ApiTokens({ db, now }),
  }
}
