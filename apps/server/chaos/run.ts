/**
 * `pnpm chaos [--seconds N] [--seed S] [--max-mib M] [--workers W] [--store-gib G]
 * [--target FILE]`: the cluster (three instances behind nginx on PostgreSQL and radosgw, or the
 * staging cluster FILE names) under the mixed workload while faults drawn from the seed strike
 * it; then the faults stop, the cleanup runs, and the invariants are checked. Prints what it does;
 * the last line is one JSON object (seed, seconds, operations, faults by kind, violations by
 * invariant); exits 1 on any violation. The same seed draws the same schedule.
 * May touch: what chaos/cluster.ts starts, and the clients of chaos/workload.ts.
 */
import { mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'

import { ApiClient, REQUEST_HTTP_SESSION_TIMEOUT_MS } from '@fileshare/protocol'
import { postgresMissing } from '@fileshare/testing/postgres'
import { radosgwMissing } from '@fileshare/testing/radosgw'

import { nginxMissing } from '../test/cluster-nginx.js'
import { startChaosCluster, type ChaosCluster } from './cluster.js'
import {
  checkBucket,
  checkDatabase,
  checkItems,
  checkProcesses,
  overdue,
  type Bounds,
  type SessionLifetimes,
} from './invariants.js'
import { Ledger } from './ledger.js'
import { countFaults, drawSchedule, type Fault } from './schedule.js'
import { readTarget, targetCluster } from './target.js'
import { runWorkload, WORKLOAD_SETTINGS } from './workload.js'

const MiB = 2 ** 20
const CLEANUP_INTERVAL_SEC = 2
/** Past a killed instance's hold (HOLD_LAPSE_MS) and a client's longest wait between resumes. */
const IDLE_SEC = 90
/** Longest the settle waits for the cleanup to end idle sessions and queued removals. */
const SETTLE_MS = (IDLE_SEC + 6 * CLEANUP_INTERVAL_SEC + 30) * 1000
const LIFETIMES: SessionLifetimes = {
  idleMs: IDLE_SEC * 1000,
  requestChunksMs: REQUEST_HTTP_SESSION_TIMEOUT_MS,
  marginMs: 5 * CLEANUP_INTERVAL_SEC * 1000,
}
/** A documented bound (docs/operations.md, "Chaos runs"). */
const PEAK_RSS_BYTES = 512 * MiB
const PRESIGNED_URL_SEC = 5
const GARBAGE_EVERY_MS = 30_000

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    'max-mib': { type: 'string', default: '200' },
    workers: { type: 'string', default: '6' },
    target: { type: 'string' },
    'store-gib': { type: 'string', default: '4' },
  },
})
const seconds = positive('seconds', values.seconds)
const seed = positive('seed', values.seed, true)
const maxBytes = positive('max-mib', values['max-mib']) * MiB
const workers = positive('workers', values.workers)
const storeBytes = positive('store-gib', values['store-gib']) * 1024 * MiB

function positive(name: string, text: string, zero = false): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < (zero ? 0 : 1)) {
    console.error(`--${name} takes a whole number${zero ? '' : ' above 0'}, not ${text}`)
    process.exit(2)
  }
  return n
}

const log = (line: string) =>
  console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`)

/** Carries out the schedule; faults on one part wait for the one before on it to end. */
async function strike(cluster: ChaosCluster, schedule: readonly Fault[], start: number) {
  const busy = new Map<string, Promise<void>>()
  const all: Promise<void>[] = []
  for (const fault of schedule) {
    await sleep(start + fault.atMs - Date.now())
    const part = fault.instance === undefined ? fault.kind : `instance ${fault.instance}`
    const act = async () => {
      log(
        `${fault.kind}${fault.instance === undefined ? '' : ` instance ${fault.instance}`} for ${fault.holdMs} ms`,
      )
      switch (fault.kind) {
        case 'kill':
          return cluster.kill(fault.instance!, fault.holdMs)
        case 'term':
          return cluster.term(fault.instance!, fault.holdMs)
        case 'pause':
          return cluster.pause(fault.instance!, fault.holdMs)
        case 'postgres':
          return cluster.restartPostgres(fault.holdMs)
        case 'storage':
          return cluster.restartStorage(fault.holdMs)
        case 'cut':
          return cluster.cut()
      }
    }
    const next = (busy.get(part) ?? Promise.resolve()).then(act)
    busy.set(part, next)
    all.push(next)
  }
  await Promise.all(all)
}

/** The fixture started here, with the settings the workload and the invariants expect. */
async function startFixture(logsDir: string): Promise<ChaosCluster> {
  const missing = nginxMissing() ?? (await postgresMissing()) ?? (await radosgwMissing())
  if (missing) {
    console.error(`the chaos run needs nginx, PostgreSQL and radosgw: ${missing}`)
    process.exit(2)
  }
  await rm(logsDir, { recursive: true, force: true })
  // The instances write Node's diagnostic reports there (a graceful stop that hangs).
  await mkdir(logsDir, { recursive: true })
  return startChaosCluster({
    logsDir,
    storeBytes,
    env: {
      ...WORKLOAD_SETTINGS,
      CLEANUP_INTERVAL: String(CLEANUP_INTERVAL_SEC),
      UPLOAD_SESSION_IDLE_SEC: String(IDLE_SEC),
      FILE_MAX_SIZE: String(2 * maxBytes),
      FILE_REQUEST_MAX_SIZE: String(2 * maxBytes),
      FILE_REQUEST_DAILY_LIMIT: String(Math.max(5, Math.round(seconds / 4))),
      FILE_UPLOAD_QUOTA_BYTES: String(Math.max(1024, seconds * 20) * MiB),
      S3_PRESIGNED_URL_EXPIRY: String(PRESIGNED_URL_SEC),
    },
  })
}

/**
 * Waits for what must have ended by the time anything is judged: with the database, until no
 * session or removal is past its time (at most SETTLE_MS); without it, SETTLE_MS.
 */
async function settle(cluster: ChaosCluster): Promise<void> {
  const deadline = Date.now() + SETTLE_MS
  if (cluster.databaseUrl === null) {
    await sleep(SETTLE_MS)
    return
  }
  await sleep((PRESIGNED_URL_SEC + 2 * CLEANUP_INTERVAL_SEC) * 1000)
  const lifetimes = { ...LIFETIMES, marginMs: 0 }
  while ((await overdue(cluster.databaseUrl, lifetimes)).length > 0 && Date.now() < deadline) {
    await sleep(1_000)
  }
}

const logsDir = fileURLToPath(new URL(`../../../.test-results/chaos/seed-${seed}`, import.meta.url))
const cluster = values.target
  ? targetCluster(await readTarget(values.target))
  : await startFixture(logsDir)
const api = new ApiClient({ baseUrl: cluster.url })
const config = await api.config()
const quota = await api.quota()
const bounds: Bounds = {
  dailyRequests: config.fileRequestDailyLimit,
  quotaBytes: quota.enabled ? quota.limitBytes : 0,
  peakRssBytes: PEAK_RSS_BYTES,
}
const schedule = drawSchedule(seed, seconds).filter((fault) => cluster.can(fault.kind))
log(`seed ${seed}, ${seconds} s, ${schedule.length} faults, uploads up to ${maxBytes / MiB} MiB`)
// radosgw frees deleted objects' space only when its garbage is collected, and its OSD keeps
// them in memory: a long run collects as it goes.
const collector = setInterval(() => {
  cluster.collectGarbage().catch(() => undefined)
}, GARBAGE_EVERY_MS)
const ledger = new Ledger()
const violations = ledger.violations
let status = 1
try {
  const start = Date.now()
  const until = start + seconds * 1000
  await Promise.all([
    strike(cluster, schedule, start),
    runWorkload({ url: cluster.url, config, seed, workers, maxBytes, until, ledger }),
  ])
  const took = Math.round((Date.now() - start) / 1000)
  log(`workload done after ${took} s: ${ledger.operations} operations`)
  // Short expiries pass and the cleanup ends what the faults left, before anything is judged.
  await settle(cluster)
  log('settled; checking')
  await checkItems(ledger, cluster.url, bounds, violations)
  await settle(cluster)
  if (cluster.databaseUrl !== null) {
    for (const what of await overdue(cluster.databaseUrl, LIFETIMES)) {
      ledger.violate('no orphans', `${what}, past its lifetime`)
    }
    await checkDatabase(cluster.databaseUrl, bounds, violations)
  }
  const { awaitingSweep } = await checkBucket(cluster, LIFETIMES.idleMs, violations)
  if (awaitingSweep > 0) {
    log(`${awaitingSweep} objects or parts a crash left are younger than the sweep's grace`)
  }
  checkProcesses(cluster, bounds, violations)
  status = violations.size === 0 ? 0 : 1
} catch (error) {
  ledger.violate(
    'run completed',
    error instanceof Error ? (error.stack ?? error.message) : String(error),
  )
} finally {
  clearInterval(collector)
  await cluster.stop()
  if (!values.target) log(`the instances' logs are in ${logsDir}`)
}

for (const [invariant, details] of violations) {
  console.log(`VIOLATION ${invariant}: ${details.length}`)
  for (const detail of details.slice(0, 10)) console.log(`  ${detail}`)
}
console.log(
  `acknowledged: ${ledger.uploads.length} uploads, ${ledger.notes.length} notes, ${ledger.requests.length} requests`,
)
for (const [what, count] of [...ledger.failures].sort()) {
  console.log(`failed ${what}: ${count}`)
  for (const sample of ledger.failureSamples.get(what) ?? []) console.log(`  ${sample}`)
}
console.log(
  JSON.stringify({
    seed,
    seconds,
    operations: ledger.operations,
    faults: countFaults(schedule),
    violations: Object.fromEntries([...violations].map(([k, v]) => [k, v.length])),
  }),
)
process.exit(status)
