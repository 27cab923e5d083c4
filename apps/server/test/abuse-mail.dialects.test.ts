/**
 * ABUSE_EMAIL: a real SMTP server receives at most one digest per ABUSE_DIGEST_INTERVAL_SEC,
 * naming every new report by number and target but neither its reason nor its key; a report is
 * never left out, whether the mail failed, the server restarted or, on PostgreSQL, two instances
 * run the background work.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { TEST_DIALECT, testPostgres } from './dialects.js'
import {
  manualClock,
  noteBody,
  startTestServer,
  type ManualClock,
  type TestServer,
} from './harness.js'
import { startMailReceiver, type MailReceiver } from './mail-receiver.js'
import { call } from './requests.suite.js'

const HOUR = 3_600_000

let mail: MailReceiver
const running: TestServer[] = []

beforeAll(async () => {
  mail = await startMailReceiver()
})
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close()
  mail.mails.length = 0
  mail.down = false
})
afterAll(() => mail.close())

function digestEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SMTP_URL: mail.url,
    ABUSE_EMAIL: 'abuse@example.test',
    ABUSE_DIGEST_INTERVAL_SEC: '3600',
    // The tests run the background work themselves.
    CLEANUP_INTERVAL: '86400',
    TRUST_PROXY: 'true',
    ...extra,
  }
}

async function start(clock: ManualClock, env = digestEnv(), dataDir?: string) {
  const server = await startTestServer({ clock, env, ...(dataDir ? { dataDir } : {}) })
  running.push(server)
  return server
}

/** Files a report from a network of its own; answers its number. */
let reporters = 0
async function fileReport(
  server: TestServer,
  body: Record<string, unknown>,
  target: string = randomUUID(),
): Promise<number> {
  reporters++
  const ip = `100.${64 + (reporters >> 8)}.${reporters & 255}.1`
  expect(await call(server, 'POST', `/report/${target}`, { body, ip })).toMatchObject({
    status: 201,
  })
  const [newest] = await server.service.services.reports.list()
  return newest!.id
}

/** The report numbers a digest names, in order. */
function named(raw: string): number[] {
  return [...raw.matchAll(/^#(\d+) /gm)].map((match) => Number(match[1]))
}

describe('abuse report digest', { timeout: 60_000 }, () => {
  it('mails one digest per interval naming every new report, without the reason or the key', async () => {
    const clock = manualClock(Date.UTC(2030, 0, 15, 12))
    const server = await start(clock)
    const created = await call(server, 'POST', '/note', { body: noteBody() })
    const target = created.body.id as string
    const key = randomBytes(34).toString('base64url')
    const first = [
      await fileReport(server, { reason: 'Phishing page pretending to be a bank', key }, target),
      await fileReport(server, { reason: 'Spam' }),
      await fileReport(server, { reason: 'Spam again' }),
    ]
    // Nothing is mailed per report: the digest goes out with the background work.
    expect(mail.mails).toEqual([])
    expect((await server.service.cleanup.runOnce()).abuseReportsMailed).toBe(3)
    expect(mail.mails).toHaveLength(1)
    const [digest] = mail.mails
    expect(digest!.to).toEqual(['abuse@example.test'])
    expect(digest!.raw).toContain('3 new abuse reports')
    expect(named(digest!.raw)).toEqual(first)
    expect(digest!.raw).toContain(target)
    // Privacy: the mail names the reports; what the reporters wrote and the key stay stored.
    expect(digest!.raw).not.toContain(key)
    expect(digest!.raw).not.toContain('Phishing')
    expect(digest!.raw).not.toContain('Spam')

    // Within the interval new reports wait; once it has passed one digest names them all.
    const second = [
      await fileReport(server, { reason: 'x' }),
      await fileReport(server, { reason: 'y' }),
    ]
    clock.advance(HOUR - 1000)
    expect((await server.service.cleanup.runOnce()).abuseReportsMailed).toBe(0)
    expect(mail.mails).toHaveLength(1)
    clock.advance(1000)
    expect((await server.service.cleanup.runOnce()).abuseReportsMailed).toBe(2)
    expect(mail.mails).toHaveLength(2)
    expect(named(mail.mails[1]!.raw)).toEqual(second)
    // Nothing new, nothing mailed.
    clock.advance(HOUR)
    expect((await server.service.cleanup.runOnce()).abuseReportsMailed).toBe(0)
    expect(mail.mails).toHaveLength(2)
  })

  it('keeps a report for the next digest when the mail fails or the server restarts', async () => {
    const clock = manualClock(Date.UTC(2030, 0, 15, 12))
    let server = await start(clock)
    const lost = await fileReport(server, { reason: 'x' })
    mail.down = true
    const failed = await server.service.cleanup.runOnce()
    expect(failed.failedSteps).toEqual(['abuseDigest'])
    expect(mail.refused).toBeGreaterThan(0)
    mail.down = false
    const later = await fileReport(server, { reason: 'y' })
    await server.close({ keepData: true })
    running.pop()
    server = await start(clock, digestEnv(), server.dataDir)
    expect((await server.service.cleanup.runOnce()).abuseReportsMailed).toBe(2)
    expect(mail.mails).toHaveLength(1)
    expect(named(mail.mails[0]!.raw)).toEqual([lost, later])
  })

  it.skipIf(TEST_DIALECT !== 'postgres')(
    'names a report once, whichever of two instances on one database runs the work',
    async () => {
      const databaseUrl = await (await testPostgres()).createDatabase()
      const clock = manualClock(Date.UTC(2030, 0, 15, 12))
      const env = digestEnv({ DATABASE_URL: databaseUrl })
      const [a, b] = [await start(clock, env), await start(clock, env)]
      const filed: number[] = []
      for (let i = 0; i < 6; i++) filed.push(await fileReport(i % 2 === 0 ? a : b, { reason: 'x' }))
      const runs = await Promise.all([a.service.cleanup.runOnce(), b.service.cleanup.runOnce()])
      expect(runs.map((run) => run.abuseReportsMailed).sort()).toEqual([0, 6])
      // Without the leader's lock as well, claims by lease keep the digests apart.
      const more: number[] = []
      for (let i = 0; i < 6; i++) more.push(await fileReport(i % 2 === 0 ? a : b, { reason: 'y' }))
      clock.advance(HOUR)
      const sent = await Promise.all([
        a.service.services.abuseDigest!.send(),
        b.service.services.abuseDigest!.send(),
      ])
      expect(sent[0]! + sent[1]!).toBe(6)
      const everyName = mail.mails.flatMap((received) => named(received.raw))
      expect(everyName.sort((x, y) => x - y)).toEqual([...filed, ...more].sort((x, y) => x - y))
    },
  )
})
