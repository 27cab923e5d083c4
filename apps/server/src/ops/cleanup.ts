/**
 * The periodic cleanup job (spec: What the service does 5; Limits, FILE_REQUEST_RETENTION_SEC):
 * removes what expired or was used up (leaving tombstones: tombstones.ts), retries failed blob
 * removals, sweeps blobs and partial files nothing refers to, ends abandoned sessions, prunes the
 * limits' windows and mails the abuse digest when due. Every instance ends its own idle sessions;
 * the shared rest runs on one instance at a time (db/leader-lock.ts).
 * May touch: tables uploads, request_uploads (read); the blob store (sweeps); timers; the log
 * and the metrics registry; the rest through the services it runs.
 */
import { REQUEST_HTTP_SESSION_TIMEOUT_MS } from '@fileshare/protocol'
import { eq } from 'drizzle-orm'

import type { Config } from '../config.js'
import type { Db } from '../db/client.js'
import type { LeaderLock } from '../db/leader-lock.js'
import type { Logger } from '../logger.js'
import { recordCleanupRun, type CleanupCounts } from '../metrics/recorder.js'
import type { BlobStore } from '../storage/blob-store.js'
import type { ApiTokens } from '../access/api-tokens.js'
import type { Lockout } from '../limits/lockout.js'
import type { DbUploadQuota } from '../limits/quota.js'
import type { RateLimit } from '../limits/rate-limiter.js'
import type { NotesService } from '../notes/notes.js'
import type { AbuseDigest } from '../notify/abuse-digest.js'
import type { BlobJanitor, RetiredCount } from '../records/blob-janitor.js'
import type { Tombstones } from '../records/tombstones.js'
import type { InboxService } from '../requests/inbox.js'
import type { RequestsService } from '../requests/requests.js'
import type { UploadSessions } from '../sessions/upload-sessions.js'
import type { UploadsService } from '../uploads/uploads.js'

/** A committed blob without a record is swept only this old: a young one may await its record. */
export const ORPHAN_GRACE_MS = 10 * 60_000

/** Extra age, past the session idle time, before a leftover partial file is swept. */
export const PARTIAL_MARGIN_MS = 10 * 60_000

/** What the job calls of the services, each narrowed to the calls it makes. */
export interface CleanupServices {
  sessions: Pick<UploadSessions, 'expireIdle' | 'expireDormant' | 'endUnresumable' | 'get'>
  liveSessionKeys: () => Promise<ReadonlySet<string>>
  janitor: Pick<BlobJanitor, 'retry' | 'pending' | 'remove'>
  quota: Pick<DbUploadQuota, 'prune'>
  requests: Pick<RequestsService, 'pruneDailyCounts' | 'removeFinishedRequests'>
  inbox: Pick<InboxService, 'removeExpiredUploads'>
  uploads: Pick<UploadsService, 'retireFinished'>
  notes: Pick<NotesService, 'retireFinished'>
  tombstones: Pick<Tombstones, 'purge'>
  rateLimiter: Pick<RateLimit, 'prune'>
  reportLimiter: Pick<RateLimit, 'prune'>
  abuseDigest: Pick<AbuseDigest, 'send'> | null
  lockout: Pick<Lockout, 'prune'>
  apiTokens: Pick<ApiTokens, 'purgeExpired'>
}

export interface CleanupDeps {
  config: Pick<Config, 'uploadSessionIdleSec'>
  db: Db
  blobs: BlobStore
  services: CleanupServices
  logger: Logger
  /** Whether this instance runs the shared steps in a given run. */
  leader: LeaderLock
  /** Milliseconds since the epoch; decides which records have expired. */
  now: () => number
}

/** A run's outcome: the counts the metrics record, and the steps that failed (each logged). */
export type CleanupReport = { -readonly [K in keyof CleanupCounts]: CleanupCounts[K] } & {
  /** Blobs of removed uploads whose removal failed and was queued for the next run. */
  blobsQueued: number
  /** Blobs kept until the presigned URL of their last download has expired (blobsRetried later). */
  blobsHeld: number
  /** Abuse reports named in the digest mailed to ABUSE_EMAIL in this run. */
  abuseReportsMailed: number
  failedSteps: string[]
}

function emptyReport(): CleanupReport {
  return {
    leading: false,
    uploadsRemoved: 0,
    blobsQueued: 0,
    blobsHeld: 0,
    notesRemoved: 0,
    tombstonesPurged: 0,
    requestUploadsRemoved: 0,
    requestsRemoved: 0,
    apiTokensPurged: 0,
    blobsRetried: 0,
    sessionsExpired: 0,
    orphansRemoved: 0,
    partialsRemoved: 0,
    quotaPruned: 0,
    abuseReportsMailed: 0,
    failedSteps: [],
  }
}

const anyContext = (_context: unknown): _context is unknown => true

export class CleanupJob {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<CleanupReport> | undefined
  private stopped = false
  /**
   * Orphan candidates seen by the previous run: a blob is swept only when two runs in a row found
   * it without a record, so a record inserted a moment after its blob was listed always wins.
   */
  private orphanCandidates = new Set<string>()

  constructor(private readonly deps: CleanupDeps) {}

  /** Runs the job every `intervalMs`; the first run comes one interval after the start. */
  start(intervalMs: number): void {
    this.stopped = false
    if (this.timer) clearInterval(this.timer)
    // A failure outside the steps, which log their own, must not end the process unhandled.
    this.timer = setInterval(
      () =>
        this.runOnce().catch((error: unknown) =>
          this.deps.logger.error('cleanup run failed', error),
        ),
      intervalMs,
    )
    // The job alone must not keep the process alive.
    this.timer.unref()
  }

  /** Stops the timer and the steps of a run under way; resolves once that run has ended. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.running
    // Another instance takes the shared work over at its next run.
    await this.deps.leader.release()
  }

  /**
   * Runs every step once; a call while a run is under way gets that run's report. After `stop()`
   * no step runs until `start()`, so nothing touches a database being closed.
   */
  runOnce(): Promise<CleanupReport> {
    this.running ??= this.run()
      .then((report) => {
        recordCleanupRun(report)
        return report
      })
      .finally(() => {
        this.running = undefined
      })
    return this.running
  }

  private async run(): Promise<CleanupReport> {
    const report = emptyReport()
    const step = this.stepper(report)
    const { services } = this.deps
    const idleMs = this.deps.config.uploadSessionIdleSec * 1000

    // This instance's own sessions, whoever leads; before the partial sweep, since ending a
    // session removes its partial file at once.
    await step('sessions', async () => {
      report.sessionsExpired = await services.sessions.expireIdle()
    })
    if (this.stopped) return report
    report.leading = await this.deps.leader.acquire()
    if (!report.leading) return report

    await this.removeFinished(report)
    // Sessions with a row are every instance's: the leader ends the idle ones and the unresumable
    // ones of a dead instance, then removes stored chunks no live session holds.
    await step('storedSessions', async () => {
      report.sessionsExpired += await services.sessions.expireDormant(
        idleMs,
        REQUEST_HTTP_SESSION_TIMEOUT_MS,
      )
      report.sessionsExpired += await services.sessions.endUnresumable()
      report.partialsRemoved += await this.deps.blobs.sweepChunks(
        idleMs + PARTIAL_MARGIN_MS,
        await services.liveSessionKeys(),
      )
    })
    await step('orphans', async () => {
      report.orphansRemoved = await this.sweepOrphans()
    })
    await step('partials', async () => {
      // Only what no live session of any instance writes: a long upload elsewhere is not aborted.
      report.partialsRemoved += await this.deps.blobs.sweepUnfinished(
        idleMs + PARTIAL_MARGIN_MS,
        await services.liveSessionKeys(),
      )
    })
    await step('quota', async () => {
      report.quotaPruned =
        (await services.quota.prune()) +
        (await services.requests.pruneDailyCounts()) +
        (await services.rateLimiter.prune()) +
        (await services.reportLimiter.prune()) +
        (await services.lockout.prune())
    })
    // Shared too: the leader alone mails, so there is one digest per interval.
    await step('abuseDigest', async () => {
      report.abuseReportsMailed = (await services.abuseDigest?.send()) ?? 0
    })

    this.deps.logger.debug(
      `cleanup (leading): ${report.uploadsRemoved} uploads (${report.blobsQueued} blobs queued, ` +
        `${report.blobsHeld} held), ` +
        `${report.notesRemoved} notes, ${report.tombstonesPurged} tombstones, ` +
        `${report.requestUploadsRemoved} request uploads, ` +
        `${report.requestsRemoved} requests, ${report.apiTokensPurged} API tokens, ` +
        `${report.blobsRetried} retried, ` +
        `${report.sessionsExpired} idle sessions, ${report.orphansRemoved} orphan blobs, ` +
        `${report.partialsRemoved} partial files, ${report.quotaPruned} quota and limit windows, ` +
        `${report.abuseReportsMailed} abuse reports mailed` +
        (report.failedSteps.length > 0 ? `; failed: ${report.failedSteps.join(', ')}` : ''),
    )
    return report
  }

  /**
   * The removal steps alone, whichever instance leads (`fileshare-admin purge-expired`): each is a
   * conditional delete, safe beside a running job.
   */
  async purgeExpired(): Promise<CleanupReport> {
    const report = emptyReport()
    report.leading = true
    await this.removeFinished(report)
    return report
  }

  /** Runs a step unless the job was stopped; a failure is logged and noted in `report`. */
  private stepper(report: CleanupReport) {
    return async (name: string, work: () => Promise<void>): Promise<void> => {
      if (this.stopped) return
      try {
        await work()
      } catch (error) {
        report.failedSteps.push(name)
        this.deps.logger.error(`cleanup step ${name} failed`, error)
      }
    }
  }

  private async removeFinished(report: CleanupReport): Promise<void> {
    const step = this.stepper(report)
    const { services } = this.deps
    // Removals that failed in earlier runs go first, so a removal that fails in this run is
    // tried again by the next run rather than right away.
    await step('retry', async () => {
      report.blobsRetried = await services.janitor.retry()
    })
    const blobsOf = ({ removed, queued, held }: RetiredCount) => {
      report.blobsQueued += queued
      report.blobsHeld += held
      return removed
    }
    await step('uploads', async () => {
      report.uploadsRemoved = blobsOf(await services.uploads.retireFinished())
    })
    await step('notes', async () => {
      report.notesRemoved = await services.notes.retireFinished()
    })
    await step('tombstones', async () => {
      report.tombstonesPurged = await services.tombstones.purge(this.deps.now())
    })
    await step('requestUploads', async () => {
      report.requestUploadsRemoved = blobsOf(await services.inbox.removeExpiredUploads())
    })
    // After the uploads: a request goes only once nothing is left in it.
    await step('requests', async () => {
      report.requestsRemoved = await services.requests.removeFinishedRequests()
    })
    await step('apiTokens', async () => {
      report.apiTokensPurged = await services.apiTokens.purgeExpired()
    })
  }

  /**
   * Removes committed blobs no record, open session or queued removal refers to, as a crash between
   * a blob's commit and its record's insert (or a record's deletion and its blob's) leaves.
   */
  private async sweepOrphans(): Promise<number> {
    const { db, blobs, services } = this.deps
    // File times come from the operating system's clock, not from the injected one.
    const cutoff = Date.now() - ORPHAN_GRACE_MS
    const { uploads, requestUploads } = db.tables
    const pending = await services.janitor.pending()
    const candidates = new Set<string>()
    const recorded = async (table: typeof uploads | typeof requestUploads, key: string) =>
      (await db.query.select({ id: table.id }).from(table).where(eq(table.id, key))).length > 0
    let removed = 0
    for await (const blob of blobs.list()) {
      if (blob.modifiedAt > cutoff || pending.has(blob.key)) continue
      if (services.sessions.get(blob.key, anyContext)) continue
      // Looked up one at a time, right before the decision, so a record inserted while the
      // listing ran is seen.
      if ((await recorded(uploads, blob.key)) || (await recorded(requestUploads, blob.key)))
        continue
      if (!this.orphanCandidates.has(blob.key)) {
        candidates.add(blob.key)
        continue
      }
      // Through the janitor, so a removal that fails is queued and retried like any other.
      if (await services.janitor.remove(blob.key)) removed++
    }
    this.orphanCandidates = candidates
    return removed
  }
}
