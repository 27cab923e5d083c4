/**
 * The notification outbox on the test dialect's database: concurrent claims never hand one row
 * to two workers, a failure puts the row back after a doubling delay, and a row is given up a
 * day after its upload. The worker on it delivers each row on its own under a deadline, so a
 * receiver that never answers delays nothing else.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startStallingWebhook, startWebhookReceiver, waitForNotice } from '@fileshare/testing'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Db } from '../src/db/client.js'
import type { Logger } from '../src/logger.js'
import { NotificationOutbox, type FinishedUpload } from '../src/notify/outbox.js'
import { NotificationWorker } from '../src/notify/worker.js'
import { openTestDatabase } from './dialects.js'
import { manualClock } from './harness.js'

const TARGETS = {
  notifyEmail: 'owner@example.test',
  notifyWebhook: null,
  notifyWebhookSecret: null,
}

const REQUEST_ID = '11111111-1111-4111-8111-111111111111'

function finished(time: number, index: number, requestId = REQUEST_ID): FinishedUpload {
  return {
    uploadId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    requestId,
    size: 1000,
    arrivedAt: time,
  }
}

/** A request row for notifications to belong to (the outbox drops those of a missing one). */
async function insertRequest(db: Db, id: string): Promise<void> {
  const bytes = Buffer.alloc(32)
  await db.query.insert(db.tables.fileRequests).values({
    id,
    vault: bytes,
    vaultNonce: bytes,
    briefCiphertext: bytes,
    briefNonce: bytes,
    uploadTokenHash: bytes,
    inboxTokenHash: bytes,
    inboxOwnerTokenHash: bytes,
    hasPassword: false,
    maxUploads: 1,
    maxSize: 1000,
    downloads: 1,
    createdAt: Date.now(),
    closesAt: Date.now() + 3_600_000,
  })
}

/** A logger that keeps its warnings and errors. */
function keptLogger(): { logger: Logger; warnings: string[]; errors: string[] } {
  const warnings: string[] = []
  const errors: string[] = []
  const ignore = () => undefined
  const logger: Logger = {
    error: (message) => errors.push(message),
    warn: (message) => warnings.push(message),
    info: ignore,
    debug: ignore,
  }
  return { logger, warnings, errors }
}

describe('the notification outbox', () => {
  let dataDir: string
  let db: Db

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fileshare-outbox-'))
    db = await openTestDatabase(dataDir)
    await insertRequest(db, REQUEST_ID)
  })
  afterAll(async () => {
    await db?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('hands each due row to exactly one of several concurrent claimers', async () => {
    // Security: two instances never both send one notification (the claim is one conditional update).
    const clock = manualClock()
    const outboxes = [0, 1, 2].map(() => new NotificationOutbox(db, clock.now))
    for (let i = 0; i < 30; i++) {
      await db.transaction((tx) => outboxes[0]!.enqueue(tx, finished(clock.now(), i), TARGETS))
    }
    const claims = await Promise.all(
      outboxes.flatMap((outbox) => [outbox.claimDue(10), outbox.claimDue(10)]),
    )
    const ids = claims.flat().map((row) => row.id)
    expect(new Set(ids).size).toBe(ids.length)
    // What nobody got in this round is still there for the next one, and nothing more.
    const rest = await outboxes[1]!.claimDue(100)
    expect(ids.length + rest.length).toBe(30)
    // A claimed row is held: nobody claims it again before its lease runs out.
    expect(await outboxes[2]!.claimDue(100)).toEqual([])
    for (const row of [...claims.flat(), ...rest]) await outboxes[0]!.delivered(row)
    expect(await outboxes[0]!.count()).toBe(0)
  })

  it('drops the rows of a request that no longer exists when they come due, unclaimed', async () => {
    const clock = manualClock()
    const outbox = new NotificationOutbox(db, clock.now)
    const gone = '22222222-2222-4222-8222-222222222222'
    await insertRequest(db, gone)
    await db.transaction(async (tx) => {
      await outbox.enqueue(tx, finished(clock.now(), 200, gone), TARGETS)
      await outbox.enqueue(tx, finished(clock.now(), 201), TARGETS)
    })
    const { fileRequests } = db.tables
    await db.query.delete(fileRequests).where(eq(fileRequests.id, gone))
    const claimed = await outbox.claimDue(10)
    expect(claimed.map((row) => row.requestId)).toEqual([REQUEST_ID])
    await outbox.delivered(claimed[0]!)
    expect(await outbox.count()).toBe(0)
  })

  it('retries after 1 s, 2 s, 4 s … up to 10 min, and gives up a day after the upload', async () => {
    const clock = manualClock()
    const start = clock.now()
    const outbox = new NotificationOutbox(db, clock.now)
    await db.transaction((tx) => outbox.enqueue(tx, finished(start, 99), TARGETS))
    const waits: number[] = []
    const { notifications } = db.tables
    for (;;) {
      const [row] = await outbox.claimDue(1)
      expect(row).toBeDefined()
      if (!(await outbox.failed(row!))) break
      const [queued] = await db.query
        .select({ notBefore: notifications.notBefore })
        .from(notifications)
      waits.push(queued!.notBefore - clock.now())
      // Not due a moment before its time.
      clock.advance(queued!.notBefore - clock.now() - 1)
      expect(await outbox.claimDue(1)).toEqual([])
      clock.advance(1)
      if (waits.length > 500) throw new Error('never gave up')
    }
    expect(waits.slice(0, 4)).toEqual([1000, 2000, 4000, 8000])
    expect(Math.max(...waits)).toBe(600_000)
    // Given up once the next try would fall more than a day after the upload.
    expect(clock.now() + 600_000).toBeGreaterThan(start + 24 * 3_600_000)
    expect(clock.now()).toBeLessThanOrEqual(start + 24 * 3_600_000)
    expect(await outbox.count()).toBe(0)
  })

  it('delivers each row on its own under a deadline, and retries then gives up a stalled one', async () => {
    const clock = manualClock()
    // Given up once a retry would come more than 2.5 s after the upload: after the second try.
    const policy = { firstDelayMs: 1000, maxDelayMs: 60_000, giveUpAfterMs: 2500, leaseMs: 120_000 }
    const outbox = new NotificationOutbox(db, clock.now, policy)
    const stalling = await startStallingWebhook(200)
    const hook = await startWebhookReceiver()
    const log = keptLogger()
    const deadlineMs = 3000
    const worker = new NotificationWorker({
      outbox,
      mailer: null,
      allowPrivate: true,
      title: 'fileshare',
      logger: log.logger,
      deadlineMs,
      pollMs: 3_600_000,
    })
    const webhook = (url: string) => ({
      notifyEmail: null,
      notifyWebhook: url,
      notifyWebhookSecret: Buffer.alloc(32, 1),
    })
    try {
      await db.transaction(async (tx) => {
        await outbox.enqueue(tx, finished(clock.now(), 300), webhook(stalling.url))
        await outbox.enqueue(tx, finished(clock.now(), 301), webhook(hook.url))
      })
      worker.start()
      worker.wake()
      // The healthy row of the same batch is delivered while the stalled one is under way.
      await waitForNotice(() => hook.delivered().length === 1)
      await stalling.reach({ opened: 1 })
      expect(stalling.closed).toEqual([])
      // So is a row queued after the stalled delivery started: nothing waits for it.
      await db.transaction((tx) =>
        outbox.enqueue(tx, finished(clock.now(), 302), webhook(hook.url)),
      )
      worker.wake()
      await waitForNotice(() => hook.delivered().length === 2)
      expect(stalling.closed).toEqual([])

      // The stalled one ends at its deadline as a failed try, put back for a second one.
      const failure = `no answer within ${deadlineMs} ms`
      await stalling.reach({ closed: 1 })
      await waitForNotice(() => log.warnings.some((line) => line.endsWith(failure)))
      clock.advance(policy.firstDelayMs)
      worker.wake()
      await stalling.reach({ opened: 2, closed: 2 })
      await waitForNotice(() => log.errors.length > 0)
      expect(log.errors).toEqual([
        `webhook notification of request ${REQUEST_ID} given up after 2 tries: ${failure}`,
      ])
      expect(await outbox.count()).toBe(0)
      expect(stalling.opened).toHaveLength(2)
    } finally {
      await worker.stop()
      await stalling.close()
      await hook.close()
    }
  }, 60_000)
})
